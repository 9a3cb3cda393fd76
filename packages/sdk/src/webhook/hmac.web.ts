/**
 * HMAC-SHA256 on WebCrypto (`crypto.subtle`), for runtimes without
 * node:crypto. The secret is imported once as a non-extractable `CryptoKey`;
 * `crypto.subtle.verify` compares in constant time.
 *
 * @module
 */
import { utf8 } from '../core/encoding.js';
import type { HmacBackend, HmacKey } from './hmac-backend.js';

interface WebHmacKey extends HmacKey {
  readonly backend: 'web';
  readonly key: CryptoKey;
}

function signedBytes(prefix: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = utf8(prefix);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

/** The WebCrypto backend. */
export const webHmacBackend: HmacBackend = {
  name: 'web',
  sync: false,
  async importKey(secret) {
    const key = await crypto.subtle.importKey(
      'raw',
      new Uint8Array(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    const prepared: WebHmacKey = { backend: 'web', key };
    return prepared;
  },
  verify(key, prefix, body, signature) {
    // A copy: the caller may reuse its buffer once this returns.
    const sig = new Uint8Array(signature);
    return crypto.subtle.verify('HMAC', (key as WebHmacKey).key, sig, signedBytes(prefix, body));
  },
  async sign(key, prefix, body) {
    return new Uint8Array(
      await crypto.subtle.sign('HMAC', (key as WebHmacKey).key, signedBytes(prefix, body)),
    );
  },
};
