#!/usr/bin/env bash
# An Agent in WebSocket mode on another runtime, against the reference server on Node.
# Run from a project where the packed tarball is installed, as a user runs it:
#   `ams serve --dev` (Node), `ams dev bootstrap` (Node), the README's bot as bot.mjs
#   under the runtime, then `ams dev send hi` (Node) must print the bot's answer "echo: hi".
# Usage: agent.sh <label> <command to run a script…>   e.g. agent.sh deno deno run -A
set -euo pipefail
label=$1
shift
work=$(mktemp -d)
server_pid=
bot_pid=
cleanup() {
  [ -n "$bot_pid" ] && kill "$bot_pid" 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

node node_modules/.bin/ams serve --dev --port 0 >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
base_url=
for _ in $(seq 1 100); do
  base_url=$(sed -n 's/^ams serve: listening on \(http:[^ ]*\).*/\1/p' "$work/serve.out" "$work/serve.err" | head -n 1)
  [ -n "$base_url" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$base_url" ]; then
  echo "not ok - $label agent: ams serve did not start"
  cat "$work/serve.out" "$work/serve.err"
  exit 1
fi

export AMS_KEY_DIR="$work/keys"
node node_modules/.bin/ams dev bootstrap --base-url "$base_url" --key-dir "$AMS_KEY_DIR" >"$work/env" 2>"$work/bootstrap.err"
set -a
# shellcheck disable=SC1091
source "$work/env"
set +a

# The README's bot, saved as the README says (bot.mjs).
awk '/^## A bot in/{f=1} f&&/^```ts/{c=1;next} c&&/^```/{exit} c' README.md >bot.mjs
grep -q 'new Agent' bot.mjs
"$@" bot.mjs >"$work/bot.log" 2>&1 &
bot_pid=$!

# `ams dev send` waits for the agent to have started (its keys registered) and for its answer.
reply=
for _ in $(seq 1 50); do
  if reply=$(node node_modules/.bin/ams dev send hi --timeout 10 2>"$work/send.err"); then break; fi
  grep -q 'has not started yet' "$work/send.err" || break
  kill -0 "$bot_pid" 2>/dev/null || break
  sleep 0.2
done
if [ "$reply" = "echo: hi" ]; then
  echo "ok - $label agent (WebSocket mode) received a sealed message from the reference server and answered it"
else
  echo "not ok - $label agent: 'ams dev send hi' got '$reply', expected 'echo: hi'"
  printf -- '-- ams dev send\n%s\n-- bot\n%s\n-- server\n%s\n' "$(cat "$work/send.err")" "$(cat "$work/bot.log")" \
    "$(tail -n 30 "$work/serve.err")"
  exit 1
fi

# Graceful close on SIGTERM (the README: "finishes running handlers, then exits").
kill -TERM "$bot_pid"
for _ in $(seq 1 50); do kill -0 "$bot_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$bot_pid" 2>/dev/null; then
  echo "not ok - $label agent: still running 5 s after SIGTERM"
  exit 1
fi
bot_status=0
wait "$bot_pid" || bot_status=$?
bot_pid=
echo "ok - $label agent exited on SIGTERM (status $bot_status)"
