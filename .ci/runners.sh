#!/usr/bin/env bash
# The recipes of docs/testing.md under three runners, against the packed
# tarballs: scripts/recipes.ts writes the page's recipe blocks, as printed, into
# one fresh project per runner (vitest, Jest, node:test), and each project runs
# with the command the page prints for it, all recipes in one run. The three
# projects share one install of both tarballs (in their parent folder); the
# runners are the repository's own (vitest, jest, @jest/globals, tsx and esbuild
# at the root's exact versions), linked in, so only the two tarballs are
# installed. Prints its wall time.
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

cd "$dir"
npm init -y >/dev/null
npm pkg set type=module >/dev/null
npm install --prefer-offline --no-audit --no-fund --silent "$tarball" "$dev_tarball" >/dev/null
installed=$SECONDS
mkdir -p node_modules/@jest
for runner in vitest jest @jest/globals tsx esbuild; do
  ln -s "$repo/node_modules/$runner" "node_modules/$runner"
  bin=$repo/node_modules/.bin/${runner#@jest/}
  [ -e "$bin" ] && [ ! -e "node_modules/.bin/$(basename "$bin")" ] && ln -s "$bin" "node_modules/.bin/$(basename "$bin")"
done

# One line per project: <runner> <tests> <command>.
(cd "$repo" && node_modules/.bin/tsx scripts/recipes.ts "$dir/recipes") >projects.txt
jobs_started=()
while read -r runner tests command; do
  (cd "recipes/$runner" && PATH="$dir/node_modules/.bin:$PATH" bash -c "$command") >"$runner.log" 2>&1 &
  jobs_started+=("$! $runner $tests")
done <projects.txt
[ "${#jobs_started[@]}" -eq 3 ] || fail "expected 3 projects, got ${#jobs_started[@]}"

# Each runner must report every test of the recipes passed, none failed.
passed() {
  case $1 in
    vitest) grep -Eq "Tests +$2 passed \($2\)" "$1.log" ;;
    jest) grep -Eq "^Tests: +$2 passed, $2 total" "$1.log" ;;
    node-test) grep -Eq "^(#|ℹ) pass $2$" "$1.log" && grep -Eq "^(#|ℹ) fail 0$" "$1.log" ;;
  esac
}
for job in "${jobs_started[@]}"; do
  read -r pid runner tests <<<"$job"
  wait "$pid" || { cat "$runner.log"; fail "$runner recipes failed"; }
  # Colours off for the summary lines.
  sed -i 's/\x1b\[[0-9;]*m//g' "$runner.log"
  passed "$runner" "$tests" || { cat "$runner.log"; fail "$runner did not pass all $tests recipe tests"; }
done
echo "runners: $(cut -d' ' -f2 projects.txt | head -1) recipe tests of docs/testing.md passed under vitest, Jest" \
  "and node:test against the packed kit in $((SECONDS - start)) s (install $((installed - start)) s)"
