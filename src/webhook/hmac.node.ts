/**
 * HMAC-SHA256 on node:crypto. The secret becomes a `KeyObject` once; each
 * verification hashes the ASCII prefix and the body in two updates (no
 * concatenation copy) and compares with `timingSafeEqual`.
 *
 * @module
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { HmacBackend, HmacKey } from './hmac.js';

interface NodeHmacKey extends HmacKey {
  readonly backend: 'node';
  readonly key: KeyObject;
}

function digest(key: HmacKey, prefix: string, body: Uint8Array): Buffer {
  return createHmac('sha256', (key as NodeHmacKey).key)
    .update(prefix, 'latin1')
    .update(body)
    .digest();
}

/** The node:crypto backend. */
export const nodeHmacBackend: HmacBackend = {
  name: 'node',
  importKey(secret) {
    const key: NodeHmacKey = { backend: 'node', key: createSecretKey(secret) };
    return Promise.resolve(key);
  },
  verify(key, prefix, body, signatureHex) {
    const mac = digest(key, prefix, body);
    const signature = Buffer.from(signatureHex, 'hex');
    return signature.length === mac.length && timingSafeEqual(mac, signature);
  },
  sign(key, prefix, body) {
    return new Uint8Array(digest(key, prefix, body));
  },
};
