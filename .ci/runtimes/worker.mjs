/* global atob, URL, Response */
// A Cloudflare Worker built from the packed tarball (bundled by esbuild in
// .ci/runtimes/workers.mjs): the webhook receiver behind the fetch adapter,
// opening envelopes with the default backend, and sealing a reply with each backend.
// Bindings (strings): SECRET, AGENT_ID, ENC_PRIVATE, SIGN_PRIVATE, SENDER_PUBLIC
// (keys base64), given by the driver.
import { createWebhookReceiver } from 'agent-messaging-sdk/webhook';
import { createFetchHandler } from 'agent-messaging-sdk/webhook/fetch';
import {
  defaultBackend,
  keysFromPrivate,
  nodeBackend,
  open,
  openAsync,
  portableBackend,
  sealBytes,
  sealBytesAsync,
} from 'agent-messaging-sdk/crypto';

const b64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const received = [];
let handle;

function setup(env) {
  const keys = keysFromPrivate(b64(env.ENC_PRIVATE), b64(env.SIGN_PRIVATE)); // default backend
  const senderKey = b64(env.SENDER_PUBLIC);
  const receiver = createWebhookReceiver({
    secret: env.SECRET,
    open: (bytes) => openAsync(bytes, { recipientId: env.AGENT_ID, keys, senderKey }), // default backend
    handler: (event) => {
      received.push({
        deliveryId: event.deliveryId,
        type: event.type,
        text: event.payload.payload.text,
        sender: event.payload.senderId,
      });
    },
  });
  return { keys, handle: createFetchHandler(receiver) };
}

export default {
  async fetch(request, env) {
    handle ??= setup(env);
    const url = new URL(request.url);
    if (url.pathname === '/webhook' && request.method === 'POST') return handle.handle(request);
    if (url.pathname === '/received') return Response.json(received);
    if (url.pathname === '/backend')
      return Response.json({ name: defaultBackend().name, node: nodeBackend() !== undefined });
    if (url.pathname === '/seal' && request.method === 'POST') {
      // Seals the posted text to the sender (whose encryption key is posted too), signed by the Worker's
      // agent key, with the portable backend or (nodejs_compat) sync with the node:crypto one, which
      // then also opens it here first.
      const { text, recipientId, recipientPublic, backend } = await request.json();
      const options = {
        sender: { id: env.AGENT_ID, signing: handle.keys.signing },
        recipients: [
          { id: recipientId, publicKey: b64(recipientPublic) },
          { id: env.AGENT_ID, publicKey: handle.keys.encryption.publicKey },
        ],
        conversationId: 'conv-1',
      };
      let sealed;
      if (backend === 'node') {
        sealed = sealBytes({ type: 'text', text }, { ...options, backend: nodeBackend() });
        const self = open(sealed, {
          recipientId: env.AGENT_ID,
          keys: handle.keys,
          senderKey: handle.keys.signing.publicKey,
          backend: nodeBackend(),
        });
        if (self.payload.text !== text)
          return new Response('node backend round trip failed', { status: 500 });
      } else {
        sealed = await sealBytesAsync({ type: 'text', text }, { ...options, backend: portableBackend });
      }
      return new Response(sealed, { headers: { 'content-type': 'application/octet-stream' } });
    }
    return new Response('not found', { status: 404 });
  },
};
