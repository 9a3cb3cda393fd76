/* global Buffer */
// Drives the Worker bundle (.ci/runtimes/worker.mjs, bundled from the packed
// tarball) in workerd through miniflare's API, from Node: signed webhook
// deliveries carrying sealed envelopes are verified and opened inside the
// Worker, and an envelope sealed inside the Worker is opened here.
// Usage (from the project with the tarball installed):
//   node workers.mjs <worker bundle> <runtimes dir> [compatibility flag…]
// Prints "ok - …" / "not ok - …" lines; exits 1 if any failed.
import { createRequire } from 'node:module';
import { randomBytes, randomUUID } from 'node:crypto';
import { generateKeys, open, sealBytes } from 'agent-messaging-sdk/crypto';
import { createWebhookSigner } from 'agent-messaging-sdk/webhook';

const [bundle, runtimesDir, ...flags] = process.argv.slice(2);
const { Miniflare } = createRequire(`${runtimesDir}/package.json`)('miniflare');
const label = `workerd${flags.length ? ` (${flags.join(', ')})` : ''}`;
let failed = 0;
async function check(name, fn) {
  try {
    const note = await fn();
    console.log(`ok - ${label}: ${name}${note ? ` (${note})` : ''}`);
  } catch (err) {
    failed++;
    console.log(`not ok - ${label}: ${name}: ${err?.stack ?? err}`);
  }
}
function assert(cond, what) {
  if (!cond) throw new Error(`assertion failed: ${what}`);
}

const user = generateKeys();
const agent = generateKeys();
const AGENT_ID = 'agent-worker';
const secret = randomBytes(32).toString('base64');
const b64 = (u8) => Buffer.from(u8).toString('base64');
const mf = new Miniflare({
  modules: true,
  scriptPath: bundle,
  compatibilityDate: '2025-09-01',
  compatibilityFlags: flags,
  bindings: {
    SECRET: secret,
    AGENT_ID,
    ENC_PRIVATE: b64(agent.encryption.privateKey),
    SIGN_PRIVATE: b64(agent.signing.privateKey),
    SENDER_PUBLIC: b64(user.signing.publicKey),
  },
});
const signer = createWebhookSigner({ secret });
function uuid7() {
  const hex = Date.now().toString(16).padStart(12, '0') + randomUUID().replace(/-/g, '').slice(12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
let n = 0;
async function delivery(text) {
  const envelope = sealBytes(
    { type: 'text', text },
    {
      sender: { id: 'user-1', signing: user.signing },
      recipients: [{ id: AGENT_ID, publicKey: agent.encryption.publicKey }],
      conversationId: 'conv-1',
      messageId: `msg-${++n}`,
    },
  );
  const body = JSON.stringify({
    type: 'message.new',
    version: 'v1',
    wire_envelope: b64(envelope),
    metadata: { conversation_id: 'conv-1', sender_id: 'user-1', created_at: new Date().toISOString() },
  });
  const deliveryId = uuid7();
  const { headers } = await signer.sign({ timestamp: Math.floor(Date.now() / 1000), deliveryId, body });
  return { body, headers, deliveryId };
}
const post = async (d, body = d.body) => {
  const res = await mf.dispatchFetch('http://worker/webhook', { method: 'POST', headers: d.headers, body });
  return { status: res.status, json: await res.json() };
};
const received = async () => (await mf.dispatchFetch('http://worker/received')).json();

let hasNode = false;
try {
  await check('Worker starts; default crypto backend', async () => {
    const res = await mf.dispatchFetch('http://worker/backend');
    const text = await res.text();
    assert(res.status === 200, `200, got ${res.status}: ${text}`);
    const { name, node } = JSON.parse(text);
    hasNode = node;
    return `${name}; node:crypto backend ${node ? 'present' : 'absent'}`;
  });
  const first = await delivery('hello, Worker');
  await check('signed delivery verified, envelope opened (default backend), handler ran', async () => {
    const res = await post(first);
    assert(
      res.status === 200 && res.json.data.status === 'processed',
      `200 processed, got ${res.status} ${JSON.stringify(res.json)}`,
    );
    const got = await received();
    assert(
      got.length === 1 && got[0].text === 'hello, Worker' && got[0].deliveryId === first.deliveryId,
      JSON.stringify(got),
    );
  });
  await check('the same delivery again is a duplicate', async () => {
    const res = await post(first);
    assert(res.status === 200 && res.json.data.status === 'duplicate', `duplicate, got ${res.status}`);
    assert((await received()).length === 1, 'handler not run again');
  });
  await check('a tampered body is refused', async () => {
    const d = await delivery('tampered');
    const res = await post(d, d.body.replace('"v1"', '"v1" '));
    assert(res.status === 401, `401, got ${res.status}`);
    assert((await received()).length === 1, 'handler not run');
    return res.json.error.code;
  });
  for (const backend of hasNode ? ['portable', 'node'] : ['portable'])
    await check(`an envelope sealed in the Worker (${backend} backend) opens on Node`, async () => {
      const res = await mf.dispatchFetch('http://worker/seal', {
        method: 'POST',
        body: JSON.stringify({
          text: 'sealed in workerd',
          recipientId: 'user-1',
          recipientPublic: b64(user.encryption.publicKey),
          backend,
        }),
      });
      assert(res.status === 200, `200, got ${res.status}: ${res.status === 200 ? '' : await res.text()}`);
      const sealed = new Uint8Array(await res.arrayBuffer());
      const opened = open(sealed, { recipientId: 'user-1', keys: user, senderKey: agent.signing.publicKey });
      assert(
        opened.payload.text === 'sealed in workerd' && opened.senderId === AGENT_ID,
        'payload and sender',
      );
      return `${sealed.length} bytes`;
    });
} finally {
  await mf.dispose();
}
console.log(`${label}: ${failed === 0 ? 'all checks passed' : `${failed} checks failed`}`);
process.exitCode = failed === 0 ? 0 : 1;
