#!/usr/bin/env bash
# Type matrix: the packed tarball, installed as a user installs it, and the
# consumer code in .ci/types/ (every public entry, every event API, the
# webhook adapters with real Express and Fastify, the testing kit) type-checked
# with skipLibCheck false, and the README's bot (as bot.mts), under
#   TypeScript:   the version we pin, and the newest on the registry
#   @types/node:  20, and the newest on the registry
#   module:       ESM NodeNext ("type": "module"), CJS NodeNext, bundler (ESNext),
#                 and node10 (CommonJS, moduleResolution node10: the subpaths resolve through
#                 typesVersions) with the pinned TypeScript only, as TypeScript 7 removed node10
# Each toolchain is installed once; the tarball and the frameworks are
# installed once and shared by every cell; a cell differs only in its
# package.json type, its tsconfig, its tsc and the @types/node it links.
#
# Usage: .ci/types.sh <sdk tarball> <dev tarball>   (TYPES_JOBS=n cells at a time, default 2)
set -euo pipefail
tarball=$(realpath "$1")
dev_tarball=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
jobs=${TYPES_JOBS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS

pin() { node -p "require('$repo/package.json').devDependencies['$1']"; }
ts_pinned=$(pin typescript)
ts_latest=$(npm view typescript@latest version 2>/dev/null)
node_latest=$(npm view @types/node@latest version 2>/dev/null)

install() { # dir, packages…
  local dir=$1
  shift
  mkdir -p "$dir"
  (cd "$dir" && echo '{"private":true}' >package.json &&
    npm install --no-audit --no-fund --no-package-lock --silent "$@") >"$dir.log" 2>&1 ||
    {
      cat "$dir.log"
      return 1
    }
}

# Toolchains and the shared project, installed side by side.
install "$work/tc/ts-$ts_pinned" "typescript@$ts_pinned" &
install "$work/tc/ts-$ts_latest" "typescript@$ts_latest" &
install "$work/tc/node-20" "@types/node@20" &
install "$work/tc/node-$node_latest" "@types/node@$node_latest" &
install "$work/project" "$tarball" "$dev_tarball" "express@$(pin express)" "@types/express@$(pin @types/express)" \
  "fastify@$(pin fastify)" "chat@$(pin chat)" "@opentelemetry/api@$(pin @opentelemetry/api)" &
for pid in $(jobs -p); do wait "$pid"; done
# The frameworks' types pull in an @types/node; each cell links its own instead.
rm -rf "$work/project/node_modules/@types/node"
node_20=$(node -p "require('$work/tc/node-20/node_modules/@types/node/package.json').version")
printf 'installed in %ss: typescript %s and %s, @types/node %s and %s\n' \
  $((SECONDS - start)) "$ts_pinned" "$ts_latest" "$node_20" "$node_latest"

# One cell: <module> <typescript version> <@types/node toolchain dir name>.
make_cell() {
  local module=$1 ts=$2 node=$3
  local cell="$work/project/$module.ts-$ts.$node"
  mkdir -p "$cell/node_modules/@types"
  ln -s "$work/tc/$node/node_modules/@types/node" "$cell/node_modules/@types/node"
  cp "$repo"/.ci/types/*.ts "$cell/"
  # The README's bot, as bot.mts (the README's name for it in TypeScript).
  awk '/^## A bot in/{f=1} f&&/^```ts/{c=1;next} c&&/^```/{exit} c' "$repo/README.md" >"$cell/readme-bot.mts"
  local type=module mod=NodeNext res=NodeNext interop= include='"*.ts", "*.mts"'
  case $module in
    cjs) type=commonjs ;;
    bundler) mod=ESNext res=Bundler ;;
    # esModuleInterop as tsc --init sets it (without it zod's and pino's own declarations fail);
    # not the README's bot, whose top-level await needs an ES module.
    node10) type=commonjs mod=CommonJS res=Node10 interop='"esModuleInterop": true, ' include='"*.ts"' ;;
  esac
  printf '{"private":true,"type":"%s"}\n' "$type" >"$cell/package.json"
  cat >"$cell/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022", "lib": ["ES2023"], "module": "$mod", "moduleResolution": "$res", $interop
    "strict": true, "noUncheckedIndexedAccess": true, "exactOptionalPropertyTypes": true,
    "skipLibCheck": false, "types": ["node"], "noEmit": true
  },
  "include": [$include]
}
JSON
  echo "$cell $work/tc/ts-$ts/node_modules/.bin/tsc"
}

cells=()
for module in esm cjs bundler node10; do
  for ts in "$ts_pinned" "$ts_latest"; do
    [ "$module" = node10 ] && [ "$ts" != "$ts_pinned" ] && continue
    for node in node-20 "node-$node_latest"; do
      cells+=("$(make_cell "$module" "$ts" "$node")")
    done
  done
done

check_cell() { # cell dir, tsc
  local name
  name=$(basename "$1")
  if (cd "$1" && "$2" -p tsconfig.json) >"$1.out" 2>&1; then
    echo "ok    $name"
  else
    echo "FAIL  $name"
  fi
}
export -f check_cell
printf '%s\n' "${cells[@]}" | xargs -P "$jobs" -L 1 bash -c 'check_cell "$0" "$1"' | sort | tee "$work/results"

failed=0
for out in "$work"/project/*.out; do
  if grep -q 'error' "$out"; then
    failed=$((failed + 1))
    printf '\n-- %s\n' "$(basename "$out" .out)"
    head -n 40 "$out"
  fi
done
total=$(wc -l <"$work/results")
printf '\ntype matrix: %s cells, %s failed, %ss\n' "$total" "$failed" $((SECONDS - start))
[ "$failed" -eq 0 ] && ! grep -q '^FAIL' "$work/results"
