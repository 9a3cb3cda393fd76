#!/usr/bin/env bash
# Installs the packed tarball into an empty project and imports every entry
# from both ESM and CJS, as a user would.
set -euo pipefail
tarball=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "$tarball"
entries='["agent-messaging-sdk","agent-messaging-sdk/crypto","agent-messaging-sdk/webhook","agent-messaging-sdk/webhook/node","agent-messaging-sdk/webhook/express","agent-messaging-sdk/webhook/fastify","agent-messaging-sdk/webhook/fetch","agent-messaging-sdk/webhook/redis","agent-messaging-sdk/testing"]'
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
  console.log('CJS import ok');
});
JS
node esm.mjs
node cjs.cjs
./node_modules/.bin/ams --version
