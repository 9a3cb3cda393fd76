#!/usr/bin/env bash
# The testing kit under three runners, against the packed tarballs: the
# blocks of docs/testing.md copied verbatim into a fresh project (vitest: the
# full example; node:test: the block after "## Runners"; Jest: the block
# after "### Under Jest", run with the command printed there). The runners
# are the repository's own (vitest, jest and tsx at the root's exact
# versions), linked into the project, so only the two tarballs are installed.
# Prints its wall time.
#
# Usage: .ci/runners.sh <sdk tarball> <dev tarball>
set -euo pipefail
tarball=$(realpath "$1")
dev_tarball=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
start=$SECONDS
trap 'jobs -p | xargs -r kill 2>/dev/null; rm -rf "$dir"' EXIT

fail() {
  echo "runners: $*" >&2
  exit 1
}

# The first ```$3 block after the line that starts with $2, in file $1.
block_after() {
  awk -v h="$2" -v lang="$3" 'index($0, h) == 1 {f=1} f && $0 == "```" lang {c=1; next} c && /^```$/ {exit} c' "$1"
}

cd "$dir"
npm init -y >/dev/null
npm pkg set type=module >/dev/null
# One install of both (the runners come from the repository, below).
npm install --prefer-offline --no-audit --no-fund --silent "$tarball" "$dev_tarball" >/dev/null
installed=$SECONDS
for runner in vitest jest tsx; do
  ln -s "$repo/node_modules/$runner" "node_modules/$runner"
  ln -s "$repo/node_modules/.bin/$runner" "node_modules/.bin/$runner"
done

docs="$repo/docs/testing.md"
block_after "$docs" 'This is `test/integration/testing-kit/example.test.ts`' ts >example.test.ts
block_after "$docs" '## Runners' ts >echo.node-test.ts
block_after "$docs" '### Under Jest' js >echo.test.mjs
jest_command=$(block_after "$docs" '### Under Jest' sh)
for f in example.test.ts echo.node-test.ts echo.test.mjs; do [ -s "$f" ] || fail "no block for $f in docs/testing.md"; done
[ -n "$jest_command" ] || fail 'no Jest command in docs/testing.md'

# The three runs are independent (each starts its own world): run them side by side.
node_modules/.bin/vitest run example.test.ts >vitest.log 2>&1 &
vitest_job=$!
node --import tsx --test --test-reporter=tap echo.node-test.ts >node-test.log 2>&1 &
node_test_job=$!
PATH="$dir/node_modules/.bin:$PATH" bash -c "$jest_command" >jest.log 2>&1 &
jest_job=$!
wait "$vitest_job" || { cat vitest.log; fail 'vitest sample failed'; }
wait "$node_test_job" || { cat node-test.log; fail 'node:test sample failed'; }
grep -q '^# pass 1$' node-test.log || { cat node-test.log; fail 'node:test ran no test'; }
wait "$jest_job" || { cat jest.log; fail 'Jest sample failed'; }
grep -q 'Tests: *1 passed' jest.log || { cat jest.log; fail 'Jest ran no test'; }
echo "runners: vitest, node:test and Jest samples passed against the packed kit in $((SECONDS - start)) s" \
  "(install $((installed - start)) s)"
