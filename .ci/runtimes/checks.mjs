/* global Bun, Deno, btoa, crypto, fetch */
// Runs in Bun, Deno and Node from a project where the packed tarball is
// installed (copied there by .ci/runtimes.sh): every entry imported as a user
// imports it, envelope seal/open with each crypto backend the runtime has, and
// a webhook receiver behind the fetch adapter, served on a real socket by the
// runtime's own server, verifying deliveries signed by the package's signer.
// Prints one "ok - …" / "not ok - …" line per check (TAP-like); exits 1 if any failed.
const runtime = globalThis.Bun
  ? `bun ${Bun.version}`
  : globalThis.Deno
    ? `deno ${Deno.version.deno}`
    : `node ${process.version}`;
let failed = 0;
async function check(name, fn) {
  try {
    const note = await fn();
    console.log(`ok - ${name}${note ? ` (${note})` : ''}`);
  } catch (err) {
    failed++;
    console.log(`not ok - ${name}: ${err?.stack ?? err}`);
  }
}
function assert(cond, what) {
  if (!cond) throw new Error(`assertion failed: ${what}`);
}

const ENTRIES = [
  'agent-messaging-sdk',
  'agent-messaging-sdk/crypto',
  'agent-messaging-sdk/protocol',
  'agent-messaging-sdk/webhook',
  'agent-messaging-sdk/webhook/node',
  'agent-messaging-sdk/webhook/express',
  'agent-messaging-sdk/webhook/fastify',
  'agent-messaging-sdk/webhook/fetch',
  'agent-messaging-sdk/webhook/redis',
  'agent-messaging-sdk/ai',
  '@agent-messaging/dev/testing',
];
for (const entry of ENTRIES) {
  await check(`import ${entry}`, async () => {
    const m = await import(entry);
    assert(Object.keys(m).length > 0, `${entry} exports something`);
    return `${Object.keys(m).length} exports`;
  });
}

const {
  generateKeys,
  sealBytes,
  sealBytesAsync,
  open,
  openAsync,
  nodeBackend,
  portableBackend,
  defaultBackend,
} = await import('agent-messaging-sdk/crypto');
const { createWebhookReceiver, createWebhookSigner } = await import('agent-messaging-sdk/webhook');
const { createFetchHandler } = await import('agent-messaging-sdk/webhook/fetch');

const sender = generateKeys();
const agent = generateKeys();
const AGENT_ID = 'agent-runtime-check';
let counter = 0;
function sealOptions(backend) {
  counter++;
  return {
    sender: { id: 'user-1', signing: sender.signing },
    recipients: [{ id: AGENT_ID, publicKey: agent.encryption.publicKey }],
    conversationId: 'conv-1',
    messageId: `msg-${counter}`,
    createdAt: new Date().toISOString(),
    ...(backend ? { backend } : {}),
  };
}
const openOptions = (backend) => ({
  recipientId: AGENT_ID,
  keys: agent,
  senderKey: sender.signing.publicKey,
  ...(backend ? { backend } : {}),
});

const node = nodeBackend();
await check(
  'default backend',
  () => `${defaultBackend().name}; node:crypto backend ${node ? 'present' : 'absent'}`,
);
const backends = [['portable', portableBackend], ...(node ? [['node', node]] : [])];
for (const [name, backend] of backends) {
  await check(`sealAsync/openAsync, ${name} backend`, async () => {
    const text = `hello from ${runtime} via ${name}`;
    const sealed = await sealBytesAsync({ type: 'text', text }, sealOptions(backend));
    const opened = await openAsync(sealed, openOptions(backend));
    assert(opened.payload.text === text, 'payload round-trips');
    assert(opened.senderId === 'user-1', 'sender id');
    return `${sealed.length} bytes`;
  });
}
if (node) {
  await check('sync seal/open, node backend', () => {
    const sealed = sealBytes({ type: 'text', text: 'sync' }, sealOptions(node));
    assert(open(sealed, openOptions(node)).payload.text === 'sync', 'payload round-trips');
  });
  await check('sealed by node backend, opened by portable and back', async () => {
    const a = sealBytes({ type: 'text', text: 'n→p' }, sealOptions(node));
    assert((await openAsync(a, openOptions(portableBackend))).payload.text === 'n→p', 'node → portable');
    const b = await sealBytesAsync({ type: 'text', text: 'p→n' }, sealOptions(portableBackend));
    assert(open(b, openOptions(node)).payload.text === 'p→n', 'portable → node');
  });
}
await check('tampered envelope refused (DECRYPT_FAILURE)', async () => {
  const sealed = await sealBytesAsync({ type: 'text', text: 'x' }, sealOptions(portableBackend));
  sealed[sealed.length - 80] ^= 1;
  const err = await openAsync(sealed, openOptions(portableBackend)).then(
    () => undefined,
    (e) => e,
  );
  assert(
    err?.code === 'DECRYPT_FAILURE' || err?.code === 'INVALID_ENVELOPE',
    `typed error, got ${err?.code}`,
  );
  return err.code;
});

// --- a webhook receiver on a real socket ---
const secret = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
const handled = [];
const receiver = createWebhookReceiver({
  secret,
  handler: (event) => {
    handled.push(event);
  },
  open: (bytes) => openAsync(bytes, openOptions()),
});
const handle = createFetchHandler(receiver);
const server = await serve(handle);
const url = `http://127.0.0.1:${server.port}/webhook`;
const signer = createWebhookSigner({ secret });
function uuid7() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  const ms = Date.now();
  for (let i = 0; i < 6; i++) b[i] = Math.floor(ms / 2 ** (8 * (5 - i))) & 0xff;
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
async function delivery(text) {
  const envelope = await sealBytesAsync({ type: 'text', text }, sealOptions());
  const body = JSON.stringify({
    type: 'message.new',
    version: 'v1',
    wire_envelope: btoa(String.fromCharCode(...envelope)),
    metadata: { conversation_id: 'conv-1', sender_id: 'user-1', created_at: new Date().toISOString() },
  });
  const deliveryId = uuid7();
  const { headers } = await signer.sign({ timestamp: Math.floor(Date.now() / 1000), deliveryId, body });
  return { body, headers, deliveryId };
}
const post = async (d, headers = d.headers, body = d.body) => {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, json: await res.json() };
};
try {
  const first = await delivery('signed delivery');
  await check('signed delivery verified, envelope opened, handler ran', async () => {
    const res = await post(first);
    assert(
      res.status === 200 && res.json.data.status === 'processed',
      `200 processed, got ${res.status} ${JSON.stringify(res.json)}`,
    );
    assert(
      handled.length === 1 && handled[0].payload.payload.text === 'signed delivery',
      'handler got the opened payload',
    );
    assert(handled[0].deliveryId === first.deliveryId, 'delivery id');
  });
  await check('the same delivery again is a duplicate', async () => {
    const res = await post(first);
    assert(res.status === 200 && res.json.data.status === 'duplicate', `200 duplicate, got ${res.status}`);
    assert(handled.length === 1, 'handler not run again');
  });
  await check('a tampered body is refused', async () => {
    const d = await delivery('original');
    const res = await post(d, d.headers, d.body.replace('message.new', 'message.new '));
    assert(res.status === 401, `401, got ${res.status}`);
    return res.json.error.code;
  });
  await check('a delivery signed with another secret is refused', async () => {
    const d = await delivery('other secret');
    const other = createWebhookSigner({ secret: btoa('y'.repeat(32)) });
    const { headers } = await other.sign({
      timestamp: Math.floor(Date.now() / 1000),
      deliveryId: d.deliveryId,
      body: d.body,
    });
    const res = await post(d, headers);
    assert(res.status === 401, `401, got ${res.status}`);
    return res.json.error.code;
  });
  await check('a stale timestamp is refused', async () => {
    const d = await delivery('stale');
    const { headers } = await signer.sign({
      timestamp: Math.floor(Date.now() / 1000) - 3600,
      deliveryId: d.deliveryId,
      body: d.body,
    });
    const res = await post(d, headers);
    assert(res.status === 400 && /TIMESTAMP/.test(res.json.error.code), `400 …TIMESTAMP…, got ${res.status}`);
    return res.json.error.code;
  });
  assert(handled.length === 1, 'no refused delivery reached the handler');
} finally {
  await server.stop();
}

/** The runtime's own HTTP server: Bun.serve, Deno.serve, or node:http (the control run). */
async function serve(fetchHandler) {
  if (globalThis.Bun) {
    const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: fetchHandler });
    return { port: s.port, stop: () => s.stop(true) };
  }
  if (globalThis.Deno) {
    const ready = Promise.withResolvers();
    const s = Deno.serve(
      { port: 0, hostname: '127.0.0.1', onListen: ({ port }) => ready.resolve(port) },
      fetchHandler,
    );
    return { port: await ready.promise, stop: () => s.shutdown() };
  }
  const { createServer } = await import('node:http');
  const { createNodeHandler } = await import('agent-messaging-sdk/webhook/node');
  const s = createServer(createNodeHandler(receiver));
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return { port: s.address().port, stop: () => new Promise((r) => s.close(r)) };
}

console.log(`${runtime}: ${failed === 0 ? 'all checks passed' : `${failed} checks failed`}`);
process.exitCode = failed === 0 ? 0 : 1;
