#!/usr/bin/env bash
# The packed tarball on the other runtimes the docs promise (docs/runtimes.md):
#   Bun, Deno   every entry imported from a project where the tarball is installed,
#               seal/open with each crypto backend the runtime has, a webhook receiver
#               (fetch adapter, the runtime's own server) verifying signed deliveries,
#               and the README's bot (an Agent in WebSocket mode) answering a message
#               from the reference server (`ams serve --dev`, on Node);
#   workerd     the webhook receiver and ./crypto bundled as a Worker (esbuild), run by
#               miniflare from Node 24: deliveries verified, envelopes opened and sealed,
#               with and without the nodejs_compat flag;
#   Node        the same import/crypto/receiver checks on Node 20, 22, 24 and 26.
# The runtimes come from the npm registry (.ci/runtimes/install.sh). Each runtime runs
# as a background job with its own log; all are waited for. Prints every log, then
# "runtime checks: N passed, N failed"; exits 1 when any check or job failed.
# Usage: .ci/runtimes.sh <sdk tarball> <dev tarball> [<runtimes dir>]   (installs there when it has no env file)
set -euo pipefail
tarball=$(realpath "$1")
dev_tarball=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
runtimes=${3:-$repo/.ci/out/runtimes}
start=$SECONDS
if [ ! -f "$runtimes/env" ]; then
  bash "$repo/.ci/runtimes/install.sh" "$runtimes"
fi
# shellcheck disable=SC1091
source "$runtimes/env"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project="$work/project"
mkdir -p "$project"
cd "$project"
echo '{"private":true,"type":"module"}' >package.json
npm install --no-audit --no-fund --silent --loglevel=error "$tarball" "$dev_tarball"
cp "$repo"/.ci/runtimes/checks.mjs "$repo"/.ci/runtimes/worker.mjs "$repo"/.ci/runtimes/workers.mjs .
# The README as installed with the SDK: agent.sh runs its bot.
cp node_modules/agent-messaging-sdk/README.md .
"$repo/node_modules/.bin/esbuild" worker.mjs --bundle --format=esm --platform=neutral \
  --conditions=workerd,worker,browser --main-fields=module,main --outfile=worker.bundle.js --log-level=error
printf 'project ready in %ss; Worker bundle %s bytes (%s gzipped)\n' $((SECONDS - start)) \
  "$(wc -c <worker.bundle.js)" "$(gzip -c worker.bundle.js | wc -c)"

agent="$repo/.ci/runtimes/agent.sh"
job() { # name, commands… (one shell string): runs in the background, output to its log
  local name=$1
  shift
  (
    t=$SECONDS
    status=0
    bash -c "set -euo pipefail; $*" >"$work/$name.log" 2>&1 || status=$?
    echo "$name: ${status} exit status, $((SECONDS - t))s" >>"$work/$name.log"
    exit "$status"
  ) &
  pids+=("$!")
  names+=("$name")
}
pids=()
names=()
job bun "'$BUN' checks.mjs && bash '$agent' bun '$BUN'"
job deno "'$DENO' run -A checks.mjs && bash '$agent' deno '$DENO' run -A"
job workerd "'$NODE24' workers.mjs worker.bundle.js '$MINIFLARE_DIR' && '$NODE24' workers.mjs worker.bundle.js '$MINIFLARE_DIR' nodejs_compat"
job node "node checks.mjs && '$NODE22' checks.mjs && '$NODE24' checks.mjs && '$NODE26' checks.mjs"

failed_jobs=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then failed_jobs=$((failed_jobs + 1)); fi
  printf '\n-- %s\n' "${names[$i]}"
  cat "$work/${names[$i]}.log"
done
passed=$(cat "$work"/*.log | grep -c '^ok - ' || true)
failed=$(cat "$work"/*.log | grep -c '^not ok - ' || true)
# A job that failed without a "not ok" line (a crash) counts as one failed check.
[ "$failed" -lt "$failed_jobs" ] && failed=$failed_jobs
printf '\nruntime checks: %s passed, %s failed (%ss)\n' "$passed" "$failed" $((SECONDS - start))
[ "$failed" -eq 0 ]
