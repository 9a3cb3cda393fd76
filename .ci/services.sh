# Services the test suite needs, started on free loopback ports.
# Sourced by .ci/run; exports the addresses the tests read.

_free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});'
}

start_redis() {
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "redis-server not found: installing Debian's redis-server package"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  fi
  REDIS_PORT=$(_free_port)
  REDIS_DIR=$(mktemp -d)
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize yes --dir "$REDIS_DIR" --pidfile "$REDIS_DIR/redis.pid" --logfile "$REDIS_DIR/redis.log"
  for _ in $(seq 1 50); do
    if redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; then
      export AMS_TEST_REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
      echo "redis-server ready at $AMS_TEST_REDIS_URL"
      return 0
    fi
    sleep 0.1
  done
  echo "redis-server did not start" >&2
  cat "$REDIS_DIR/redis.log" >&2 || true
  return 1
}

stop_redis() {
  if [ -n "${REDIS_DIR:-}" ] && [ -f "$REDIS_DIR/redis.pid" ]; then
    kill "$(cat "$REDIS_DIR/redis.pid")" 2>/dev/null || true
  fi
}

# The dev console's browser tests drive Debian's Chromium (playwright-core cannot
# download its own browser here); in CI a missing Chromium fails those tests.
install_chromium() {
  if [ -x /usr/bin/chromium ] || [ -n "${AMS_CHROMIUM:-}" ]; then
    return 0
  fi
  echo "chromium not found: installing Debian's chromium package"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >/dev/null || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji >/dev/null
}

start_services() {
  start_redis
  install_chromium
}

stop_services() {
  stop_redis
}
