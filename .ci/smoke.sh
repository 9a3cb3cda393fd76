#!/usr/bin/env bash
# Installs the packed SDK tarball into an empty project (at most 6 packages
# with its dependencies), then the dev package's tarball beside it, and imports
# every entry from both ESM and CJS, as a user would.
# Usage: .ci/smoke.sh <sdk tarball> <dev tarball>
set -euo pipefail
tarball=$(realpath "$1")
dev_tarball=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "$tarball"
# The SDK alone: itself and its dependencies, at most 6 packages.
installed=$(npm ls --all --parseable 2>/dev/null | tail -n +2 | sort -u | wc -l)
echo "the SDK alone installs $installed packages (itself included): $(ls node_modules | grep -v '^\.' | tr '\n' ' ')"
[ "$installed" -le 6 ] || { echo "the SDK installs more than 6 packages" >&2; exit 1; }
npm install --no-audit --no-fund --silent -D "$dev_tarball"
entries='["agent-messaging-sdk","agent-messaging-sdk/crypto","agent-messaging-sdk/protocol","agent-messaging-sdk/webhook","agent-messaging-sdk/webhook/node","agent-messaging-sdk/webhook/express","agent-messaging-sdk/webhook/fastify","agent-messaging-sdk/webhook/fetch","agent-messaging-sdk/webhook/redis","agent-messaging-sdk/ai","@agent-messaging/dev/testing"]'
cat > esm.mjs <<JS
for (const e of $entries) {
  const m = await import(e);
  if (Object.keys(m).length === 0) throw new Error('empty ESM entry ' + e);
}
const { isServiceError, ServiceError } = await import('agent-messaging-sdk');
const err = new ServiceError({ code: 'RATE_LIMITED', status: 429, message: 'x' });
if (!isServiceError(err, 'RATE_LIMITED')) throw new Error('guard failed');
console.log('ESM import ok');
JS
cat > cjs.cjs <<JS
for (const e of $entries) {
  const m = require(e);
  if (Object.keys(m).length === 0) throw new Error('empty CJS entry ' + e);
}
// Errors from the CJS copy are recognised by the ESM copy's guards (Symbol.for brand).
const cjs = require('agent-messaging-sdk');
import('agent-messaging-sdk').then((esm) => {
  const err = new cjs.ServiceError({ code: 'AGENT_BANNED', status: 403, message: 'x' });
  if (!esm.isServiceError(err, 'AGENT_BANNED')) throw new Error('cross-copy guard failed');
  if (!(err instanceof esm.ServiceError) || err instanceof esm.TransportError) throw new Error('cross-copy instanceof failed');
  console.log('CJS import ok');
});
JS
node esm.mjs
node cjs.cjs
# agent-messaging-sdk/chat: ESM only, with its optional peer `chat` installed as a bot author would.
# The override keeps one copy of `chat` (state-memory 4.41.0 pins chat 4.41.0 exactly; docs/chat-sdk.md).
npm pkg set 'overrides[@chat-adapter/state-memory][chat]=$chat' >/dev/null
npm install --no-audit --no-fund --silent "chat@$(node -p "require('$repo/package.json').devDependencies.chat")" \
  "@chat-adapter/state-memory@$(node -p "require('$repo/package.json').devDependencies['@chat-adapter/state-memory']")"
node --input-type=module -e "const m = await import('agent-messaging-sdk/chat'); if (typeof m.createAmsAdapter !== 'function') throw new Error('no createAmsAdapter'); console.log('chat entry ok (ESM)')"
./node_modules/.bin/ams --version

# #25: the OpenTelemetry entry with its optional peer and SDKs (linked from the repository's
# node_modules; the examples below use them too), imported from ESM and CJS; the SDK alone above never loads it.
ln -sfn "$repo/node_modules/@opentelemetry" node_modules/@opentelemetry
node --input-type=module -e "const m = await import('agent-messaging-sdk/otel'); if (typeof m.instrument !== 'function') throw new Error('otel ESM');"
node -e "if (typeof require('agent-messaging-sdk/otel').instrument !== 'function') throw new Error('otel CJS')"
echo 'otel entry ok (ESM and CJS)'

# The README's bot, saved as the README says, in this `npm init -y` (CommonJS)
# project: valid JavaScript, an ES module (top-level await).
awk '/^## A bot in/{f=1} f&&/^```ts/{c=1;next} c&&/^```/{exit} c' "$repo/README.md" >bot.mjs
grep -q "new Agent" bot.mjs
node --check bot.mjs
echo 'README bot ok as bot.mjs in a CommonJS project'

# The examples, type-checked against the installed package as a user's project
# would see it (frameworks and types linked from the repository's node_modules).
mkdir -p examples
cp "$repo"/examples/*.ts examples/
rm -f examples/demo.ts # the demo imports the repository's sources, not the packages
for dep in express @types/express fastify hono @hono/node-server @types/node ioredis ai @modelcontextprotocol/sdk vitest; do
  mkdir -p "node_modules/$(dirname "$dep")"
  ln -sfn "$repo/node_modules/$dep" "node_modules/$dep"
done
# The MCP bridge's entry (its peer @modelcontextprotocol/sdk linked above), from ESM and CJS.
node --input-type=module -e "const m = await import('agent-messaging-sdk/mcp'); if (typeof m.createMcpServer !== 'function') throw new Error('mcp ESM entry');"
node -e "const m = require('agent-messaging-sdk/mcp'); if (typeof m.createMcpServer !== 'function') throw new Error('mcp CJS entry');"
echo 'agent-messaging-sdk/mcp ok from ESM and CJS with its optional peer'
cat > tsconfig.json <<JSON
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true,
    "noUncheckedIndexedAccess": true, "exactOptionalPropertyTypes": true, "verbatimModuleSyntax": true,
    "skipLibCheck": true, "types": ["node"], "noEmit": true
  },
  "include": ["examples"]
}
JSON
npm pkg set type=module >/dev/null
"$repo/node_modules/.bin/tsc" -p tsconfig.json
echo 'examples type-check ok against the installed package'
