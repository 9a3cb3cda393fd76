/**
 * The node:crypto backend (Node, and runtimes with node:crypto such as Bun and
 * Deno). Measured choices, see docs/crypto-backends.md:
 * - raw 32-byte keys are imported as JWK (≈8 µs), never through DER/SPKI;
 * - imported KeyObjects are cached (by array identity, and Ed25519 public keys
 *   also by content, since sender keys often arrive as fresh arrays);
 * - HKDF is built by the caller from two HMAC calls;
 * - the async Ed25519 sign/verify run on the libuv thread pool, so many opens in
 *   flight use every core;
 * - Ed25519 verification applies the SDK's one rule (`../ed25519-rules.ts`) before
 *   OpenSSL's cofactorless check, which alone accepts small-order and
 *   non-canonical keys.
 *
 * node:crypto is reached through `process.getBuiltinModule` so that merely
 * importing this module never fails on runtimes without it.
 *
 * @module
 */
import type * as NodeCrypto from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { ed25519SignatureProblem } from '../ed25519-rules.js';
import { passesKnownAnswers } from './node-probe.js';
import type { AsyncPrimitives, SyncCryptoBackend, SyncPrimitives } from './types.js';

type NodeCryptoModule = typeof NodeCrypto;
type Curve = 'X25519' | 'Ed25519';
interface ProcessLike {
  getBuiltinModule?: (id: string) => unknown;
}

function loadNodeCrypto(): NodeCryptoModule | undefined {
  const proc = (globalThis as { process?: ProcessLike }).process;
  try {
    return proc?.getBuiltinModule?.('node:crypto') as NodeCryptoModule | undefined;
  } catch {
    return undefined;
  }
}

const CONTENT_CACHE_MAX = 512;

/** An X25519 / Ed25519 KeyObject cache keyed by array identity, then content. */
class KeyCache {
  private readonly byArray = new WeakMap<Uint8Array, KeyObject>();
  private readonly byContent = new Map<string, KeyObject>();

  constructor(private readonly useContent: boolean) {}

  get(bytes: Uint8Array, make: () => KeyObject): KeyObject {
    const hit = this.byArray.get(bytes);
    if (hit !== undefined) return hit;
    if (!this.useContent) return this.remember(bytes, make());
    const id = b64url(bytes);
    let key = this.byContent.get(id);
    if (key === undefined) {
      key = make();
      if (this.byContent.size >= CONTENT_CACHE_MAX)
        this.byContent.delete(this.byContent.keys().next().value!);
      this.byContent.set(id, key);
    }
    return this.remember(bytes, key);
  }

  private remember(bytes: Uint8Array, key: KeyObject): KeyObject {
    this.byArray.set(bytes, key);
    return key;
  }
}

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

function toBytes(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * The PKCS#8 DER prefix of a raw 32-byte X25519 or Ed25519 private key (RFC 8410): the key follows it.
 * Private keys are imported this way, not as JWK: a private JWK needs `x`, the public key, and Node 26
 * refuses one whose `x` does not match `d`, which callers that only hold the private key cannot give.
 */
const PKCS8_PREFIX: Record<Curve, Uint8Array> = {
  X25519: Uint8Array.from([48, 46, 2, 1, 0, 48, 5, 6, 3, 43, 101, 110, 4, 34, 4, 32]),
  Ed25519: Uint8Array.from([48, 46, 2, 1, 0, 48, 5, 6, 3, 43, 101, 112, 4, 34, 4, 32]),
};

/** Imports raw keys as KeyObjects (private keys through PKCS#8, public keys through JWK), with caching. */
function keyImporter(c: NodeCryptoModule) {
  const caches = {
    X25519: [new KeyCache(false), new KeyCache(false)],
    Ed25519: [new KeyCache(false), new KeyCache(true)],
  };
  // `_pub` is not needed: node:crypto derives the public key from the private one.
  const privateKey = (crv: Curve, priv: Uint8Array, _pub?: Uint8Array): KeyObject =>
    caches[crv][0]!.get(priv, () => {
      const der = Buffer.concat([PKCS8_PREFIX[crv], priv]);
      try {
        return c.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      } finally {
        der.fill(0);
      }
    });
  const importPublic = (crv: Curve, pub: Uint8Array): KeyObject =>
    c.createPublicKey({ key: { kty: 'OKP', crv, x: b64url(pub) }, format: 'jwk' });
  // An X25519 key that is a view into a larger buffer is an envelope's ephemeral key: never reused, not cached.
  const publicKey = (crv: Curve, pub: Uint8Array): KeyObject =>
    crv === 'X25519' && pub.byteLength !== pub.buffer.byteLength
      ? importPublic(crv, pub)
      : caches[crv][1]!.get(pub, () => importPublic(crv, pub));
  const derivePublic = (crv: Curve, priv: Uint8Array): Uint8Array => {
    const jwk = c.createPublicKey(privateKey(crv, priv)).export({ format: 'jwk' });
    return toBytes(Buffer.from(jwk.x ?? '', 'base64url'));
  };
  return { privateKey, publicKey, derivePublic };
}

type Importer = ReturnType<typeof keyImporter>;

function aesGcm(
  c: NodeCryptoModule,
): Pick<SyncPrimitives, 'aesGcmEncrypt' | 'aesGcmDecrypt'> &
  Required<Pick<SyncPrimitives, 'aesGcmEncryptInto'>> {
  const encryptInto = (
    key: Uint8Array,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    aad: Uint8Array,
    out: Uint8Array,
    offset: number,
  ): void => {
    const cipher = c.createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(aad);
    // update() reads all of the plaintext before its result is copied over it: safe in place.
    const head = cipher.update(plaintext);
    out.set(head, offset);
    out.set(cipher.final(), offset + head.length);
    out.set(cipher.getAuthTag(), offset + plaintext.length);
  };
  return {
    aesGcmEncryptInto: encryptInto,
    aesGcmEncrypt(key, nonce, plaintext, aad) {
      const out = Buffer.allocUnsafe(plaintext.length + 16);
      encryptInto(key, nonce, plaintext, aad, out, 0);
      return toBytes(out);
    },
    aesGcmDecrypt(key, nonce, sealed, aad) {
      if (sealed.length < 16) return undefined;
      const n = sealed.length - 16;
      try {
        const decipher = c.createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
        decipher.setAAD(aad);
        decipher.setAuthTag(sealed.subarray(n));
        const out = decipher.update(sealed.subarray(0, n));
        decipher.final();
        return toBytes(out);
      } catch {
        return undefined;
      }
    },
  };
}

function syncPrimitives(c: NodeCryptoModule, keys: Importer): SyncPrimitives {
  return {
    x25519(kp, peer) {
      if (peer.length !== 32 || kp.privateKey.length !== 32) return undefined;
      try {
        const privateKey = keys.privateKey('X25519', kp.privateKey, kp.publicKey);
        return toBytes(c.diffieHellman({ privateKey, publicKey: keys.publicKey('X25519', peer) }));
      } catch {
        return undefined; // invalid point or all-zero shared secret
      }
    },
    ed25519Sign: (kp, message) =>
      toBytes(c.sign(null, message, keys.privateKey('Ed25519', kp.privateKey, kp.publicKey))),
    ed25519Verify(pub, message, signature) {
      // The SDK's rule (ed25519-rules.ts) first; OpenSSL then checks the cofactorless equation.
      if (ed25519SignatureProblem(pub, signature) !== undefined) return false;
      try {
        return c.verify(null, message, keys.publicKey('Ed25519', pub), signature);
      } catch {
        return false; // not a valid point
      }
    },
    sha256: (data) => toBytes(c.createHash('sha256').update(data).digest()),
    hmacSha256: (key, data) => toBytes(c.createHmac('sha256', key).update(data).digest()),
    sha256Incremental: () => {
      const h = c.createHash('sha256');
      return { update: (data) => void h.update(data), digest: () => toBytes(h.digest()) };
    },
    ...aesGcm(c),
  };
}

/** Ed25519 sign/verify on the libuv thread pool; the rest is the sync code behind a promise. */
function asyncPrimitives(c: NodeCryptoModule, keys: Importer, sync: SyncPrimitives): AsyncPrimitives {
  return {
    x25519: async (kp, peer) => sync.x25519(kp, peer),
    ed25519Sign: (kp, message) =>
      new Promise((resolve, reject) => {
        const key = keys.privateKey('Ed25519', kp.privateKey, kp.publicKey);
        c.sign(null, message, key, (err, sig) => (err ? reject(err) : resolve(toBytes(sig))));
      }),
    ed25519Verify(pub, message, signature) {
      if (ed25519SignatureProblem(pub, signature) !== undefined) return Promise.resolve(false);
      let key: KeyObject;
      try {
        key = keys.publicKey('Ed25519', pub);
      } catch {
        return Promise.resolve(false);
      }
      return new Promise((resolve) => {
        c.verify(null, message, key, signature, (err, ok) => resolve(err === null && ok));
      });
    },
    sha256: async (data) => sync.sha256(data),
    hmacSha256: async (key, data) => sync.hmacSha256(key, data),
    aesGcmEncrypt: async (key, nonce, plaintext, aad) => sync.aesGcmEncrypt(key, nonce, plaintext, aad),
    aesGcmDecrypt: async (key, nonce, sealed, aad) => sync.aesGcmDecrypt(key, nonce, sealed, aad),
  };
}

/** Builds the node:crypto backend from a loaded node:crypto module. */
function build(c: NodeCryptoModule): SyncCryptoBackend {
  const keys = keyImporter(c);
  const sync = syncPrimitives(c, keys);
  return {
    name: 'node',
    randomBytes: (length) => toBytes(c.randomBytes(length)),
    x25519PublicKey: (priv) => keys.derivePublic('X25519', priv),
    ed25519PublicKey: (priv) => keys.derivePublic('Ed25519', priv),
    sha256: sync.sha256,
    sync,
    async: asyncPrimitives(c, keys, sync),
  };
}

let cached: SyncCryptoBackend | null | undefined;

/**
 * The node:crypto backend, or `undefined` on a runtime without node:crypto
 * (or without `process.getBuiltinModule`, i.e. Node older than 20.16), or
 * whose node:crypto fails the X25519 / Ed25519 known-answer tests (Cloudflare
 * Workers with `nodejs_compat`).
 *
 * @example
 * ```ts
 * const backend = nodeBackend();
 * if (backend) seal(payload, { ...options, backend });
 * ```
 */
export function nodeBackend(): SyncCryptoBackend | undefined {
  if (cached === undefined) {
    const c = loadNodeCrypto();
    const built = c === undefined ? undefined : build(c);
    cached = built !== undefined && passesKnownAnswers(built) ? built : null;
  }
  return cached ?? undefined;
}
