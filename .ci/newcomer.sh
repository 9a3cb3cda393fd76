#!/usr/bin/env bash
# A newcomer's first hour, scripted: the packed tarball in a fresh `npm init -y`
# project with the newest TypeScript, @types/node and tsx; the README's bot and
# the webhook guide's first sample copied verbatim (extracted from the docs, so
# a docs change a newcomer would copy breaks this run), type-checked strict,
# then run against `ams serve --dev` after `ams dev bootstrap` (the README's two
# commands verbatim, on port 8080 with --data .ams), each one talked to with
# `npx ams dev send "hello"` and its echo asserted. Prints its wall time.
#
# The extraction rules are shared with test/unit/package/newcomer-docs.test.ts
# (which fails fast when a block goes missing): the first ```ts block after the
# README heading "## A bot in", and the first ```ts block after the
# docs/webhooks.md heading "## The Agent in webhook mode".
#
# Usage: .ci/newcomer.sh <sdk tarball> <dev tarball>   (installed as the README says:
# the SDK, then the dev package as a dev dependency)
set -euo pipefail
tarball=$(realpath "$1")
dev_tarball=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
# NEWCOMER_STAGE=samples: the second half only (the samples run against the
# server), in the project NEWCOMER_DIR that the first half installed; used to
# rerun it in a network namespace of its own when port 8080 is taken (below).
stage=${NEWCOMER_STAGE:-all}
if [ "$stage" = samples ]; then dir=$NEWCOMER_DIR; else dir=$(mktemp -d); fi
start=$SECONDS
pids=()

# Every background job gets its own process group (npx and tsx start child
# processes): cleanup signals the whole group, and SIGKILLs what is left after 5 s.
set -m
cleanup() {
  local status=$? pid i
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for ((i = 0; i < 50; i++)); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 -- "-$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
  if [ "$status" -ne 0 ]; then
    for log in "$dir"/*.log "$dir"/*/*.log; do
      [ -f "$log" ] && printf '\n-- %s\n' "${log#"$dir"/}" && tail -n 30 "$log"
    done
  fi
  [ "$stage" = samples ] || rm -rf "$dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "newcomer: $*" >&2
  exit 1
}

# The first ```ts block after the line that starts with $2, in file $1.
block_after() {
  awk -v h="$2" 'index($0, h) == 1 {f=1} f && /^```ts$/ {c=1; next} c && /^```$/ {exit} c' "$1"
}

# The $3-th ```sh block after the line that starts with $2 in file $1, one command.
sh_block() {
  awk -v h="$2" -v n="$3" 'index($0, h) == 1 {f=1} f && /^```sh$/ {k++; if (k == n) {c=1; next}} c && /^```$/ {exit} c' "$1"
}

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Waits up to $2 seconds for file $1 to contain a line matching $3.
wait_for_line() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    grep -qE "$3" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# `npx ams dev send "hello"` as the docs print it (ams reads .env of the working
# directory itself); retried while the bot has not registered its keys yet (nothing was sent then).
send_hello() {
  local out i
  for ((i = 0; i < 60; i++)); do
    if out=$(npx --no-install ams dev send "hello" 2>send.err); then
      echo "$out"
      return 0
    fi
    grep -q 'has not started yet' send.err || {
      cat send.err >&2
      return 1
    }
    sleep 0.5
  done
  cat send.err >&2
  return 1
}

cd "$dir"
if [ "$stage" = all ]; then
echo "newcomer: fresh project in $dir"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "$tarball" >install.log 2>&1 || fail "installing the SDK tarball failed"
npm install --no-audit --no-fund --silent -D "$dev_tarball" >>install.log 2>&1 || fail "installing the dev tarball failed"
npm install --no-audit --no-fund --silent -D typescript@latest @types/node@latest tsx@latest >>install.log 2>&1 ||
  fail "installing typescript, @types/node and tsx failed"
printf 'newcomer: installed in %ss (typescript %s, @types/node %s, tsx %s)\n' $((SECONDS - start)) \
  "$(node -p 'require("typescript/package.json").version')" \
  "$(node -p 'require("@types/node/package.json").version')" \
  "$(node -p 'require("tsx/package.json").version')"

# Copied verbatim, saved under the names the docs give (an ES module: .mts).
block_after "$repo/README.md" '## A bot in' >bot.mts
block_after "$repo/docs/webhooks.md" '## The Agent in webhook mode' >webhook-bot.mts
grep -q 'new Agent' bot.mts || fail "README.md: no ts block after '## A bot in'"
grep -q "mode: 'webhook'" webhook-bot.mts || fail "docs/webhooks.md: no webhook-mode ts block after '## The Agent in webhook mode'"

# Strict type-check, as a newcomer runs it: plain tsc without a tsconfig, then
# with the tsconfig `tsc --init` writes (strict, noUncheckedIndexedAccess,
# exactOptionalPropertyTypes, verbatimModuleSyntax, NodeNext).
npx --no-install tsc --strict --noEmit --module nodenext bot.mts webhook-bot.mts ||
  fail "the docs' samples do not type-check with 'tsc --strict --module nodenext'"
npx --no-install tsc --init >/dev/null
npx --no-install tsc --noEmit -p tsconfig.json || fail "the docs' samples do not type-check with the tsconfig of 'tsc --init'"
echo 'newcomer: README bot and webhook guide sample type-check (strict, and with the tsconfig of tsc --init)'

# docs/ai-sdk.md, as printed: `ai` and zod beside the SDK, vitest beside the dev package (the
# guide's two install lines, with our tarballs for our two packages), the agent's three blocks
# saved as ai-sdk-agent.ts and the kit test as ai-sdk-agent.test.ts, then the guide's command:
# a mock model streams a step and an approved tool call to a UserClient, which stops a second turn.
mkdir ai && cd ai
npm init -y >/dev/null
ai_start=$SECONDS
npm install --no-audit --no-fund --silent "$tarball" ai zod >install.log 2>&1 || fail "docs/ai-sdk.md: installing the SDK, ai and zod failed"
npm install --no-audit --no-fund --silent -D "$dev_tarball" vitest >>install.log 2>&1 || fail "docs/ai-sdk.md: installing the dev package and vitest failed"
for region in imports model agent; do
  awk -v r="<!-- region: examples/ai-sdk-agent.ts#$region -->" 'index($0, r) == 1 {f=1; next} f && /^```ts$/ {c=1; next} c && /^```$/ {exit} c' "$repo/docs/ai-sdk.md"
done >ai-sdk-agent.ts
awk '/^<!-- file: examples\/ai-sdk-agent.test.ts -->$/ {f=1; next} f && /^```ts$/ {c=1; next} c && /^```$/ {exit} c' "$repo/docs/ai-sdk.md" >ai-sdk-agent.test.ts
grep -q 'export function aiAgent' ai-sdk-agent.ts || fail "docs/ai-sdk.md: no agent block"
grep -q "from './ai-sdk-agent.js'" ai-sdk-agent.test.ts || fail "docs/ai-sdk.md: no kit test block"
ai_cmd=$(awk '/^```sh$/ {c=1; next} c && /^```$/ {c=0} c && /^npx vitest run/' "$repo/docs/ai-sdk.md")
[ "$ai_cmd" = 'npx vitest run ai-sdk-agent.test.ts' ] || fail "docs/ai-sdk.md: unexpected command '$ai_cmd'"
bash -c "$ai_cmd" >vitest.log 2>&1 || fail "docs/ai-sdk.md: '$ai_cmd' failed in a fresh project"
sed 's/\x1b\[[0-9;]*m//g' vitest.log | grep -qE 'Tests +2 passed' || fail "docs/ai-sdk.md: the kit test did not pass its 2 tests"
printf 'newcomer: docs/ai-sdk.md in a fresh project (ai %s, vitest %s): 2 passed in %ss\n' \
  "$(node -p 'require("ai/package.json").version')" "$(node -p 'require("vitest/package.json").version')" $((SECONDS - ai_start))
cd ..
fi

# The README's two commands, verbatim (the ```sh blocks after "Against a local server"): the
# service, then bootstrap and the bot, saved as the README says (bot.mjs), in a folder of its own.
serve_cmd=$(sh_block "$repo/README.md" 'Against a local server' 1)
bot_cmd=$(sh_block "$repo/README.md" 'Against a local server' 2)
case "$serve_cmd" in "npx ams serve --dev --port 8080"*) ;; *) fail "README: unexpected first command '$serve_cmd'" ;; esac
case "$bot_cmd" in "npx ams dev bootstrap > .env && node --env-file=.env bot.mjs") ;; *) fail "README: unexpected second command '$bot_cmd'" ;; esac

# The README's commands need port 8080. When another process on this machine holds
# it, the rest runs in a network namespace of its own (loopback only, as the tests).
if [ "$stage" = all ] && ! node -e 'require("net").createServer().once("error",()=>process.exit(1)).listen(8080,"127.0.0.1",function(){this.close()})'; then
  command -v unshare >/dev/null && command -v ip >/dev/null && unshare -rn true 2>/dev/null ||
    fail "port 8080 is taken and no network namespace is available: the README's commands need it"
  echo "newcomer: port 8080 is taken on this machine; the samples run in a network namespace of their own"
  unshare -rn bash -c 'ip link set lo up && exec "$@"' _ env NEWCOMER_STAGE=samples NEWCOMER_DIR="$dir" \
    bash "$repo/.ci/newcomer.sh" "$tarball" "$dev_tarball"
  exit $?
fi
mkdir ws && cp bot.mts ws/bot.mjs && cd ws
PATH="$dir/node_modules/.bin:$PATH" bash -c "$serve_cmd" >../serve.out 2>../serve.log &
pids+=($!)
disown
wait_for_line ../serve.out 30 '^ams serve: listening on ' || fail "ams serve --dev did not start"
base=$(sed -n 's/^ams serve: listening on \(http[^ ]*\).*/\1/p' ../serve.out)
echo "newcomer: $serve_cmd -> $base"
bash -c "$bot_cmd" >bot.log 2>&1 &
pids+=($!)
disown
wait_for_line bot.log 30 'connected, listening' || fail "the README bot printed no 'connected, listening' line"
# bot.log holds bootstrap's stderr lines too; the bot itself says one line.
[ "$(grep -vc '^ams dev bootstrap' bot.log)" -eq 1 ] || fail "the README bot printed more than one line when it started"
reply=$(send_hello) || fail "ams dev send to the README bot failed"
[ "$reply" = 'echo: hello' ] || fail "README bot answered '$reply', expected 'echo: hello'"
echo "newcomer: README bot (WebSocket) answered '$reply' after $((SECONDS - start))s"
[ -s .ams/store.jsonl ] || fail "ams serve --data .ams kept nothing in .ams"
cd ..

# Webhook mode: the guide's sample, saved as the guide says (bot.mjs) and run with plain node as it
# says, its webhook registered as the guide says.
mkdir hook && cp webhook-bot.mts hook/bot.mjs && cd hook
port=$(free_port)
npx --no-install ams dev bootstrap --base-url "$base" --webhook-url "http://127.0.0.1:$port/webhook" >>.env \
  2>bootstrap.log || fail "ams dev bootstrap --webhook-url failed"
grep -q "^PORT=$port$" .env || fail "ams dev bootstrap did not print PORT=$port"
node --env-file=.env bot.mjs >bot.log 2>&1 &
pids+=($!)
disown
reply=$(send_hello) || fail "ams dev send to the webhook bot failed"
[ "$reply" = 'echo: hello' ] || fail "webhook bot answered '$reply', expected 'echo: hello'"
echo "newcomer: webhook guide bot answered '$reply' after $((SECONDS - start))s"
agent=$(sed -n 's/^AMS_AGENT_ID=//p' .env)
cd ..

# The dev server's one-line log shows the webhook delivery, as the guide says.
grep -q "delivery.delivered agent=$agent " serve.log || fail "ams serve --dev logged no delivery to the webhook agent"
printf 'newcomer run: ok in %ss\n' $((SECONDS - start))
