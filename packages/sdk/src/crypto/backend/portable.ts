/**
 * The portable backend: WebCrypto (`globalThis.crypto.subtle`) for AES-256-GCM,
 * SHA-256, Ed25519 and X25519, with @noble/curves standing in where the runtime's
 * WebCrypto lacks Ed25519 or X25519, and @noble/hashes for HMAC (small inputs,
 * where a WebCrypto round trip costs more than the hash). Asynchronous only:
 * WebCrypto has no synchronous AES-GCM.
 *
 * Runs on any runtime with WebCrypto (browsers, Deno, Bun, Cloudflare Workers,
 * Node). Gives byte-identical envelopes to the node backend.
 *
 * @module
 */
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { toBase64 } from '../../core/encoding.js';
import { ed25519SignatureProblem, ed25519VerifyStrict } from '../ed25519-rules.js';
import type { AsyncPrimitives, CryptoBackend, RawKeyPair } from './types.js';

type Subtle = SubtleCrypto;
type Curve = 'Ed25519' | 'X25519';

function subtle(): Subtle {
  const s = globalThis.crypto?.subtle;
  if (s === undefined) throw new Error('WebCrypto (crypto.subtle) is not available on this runtime');
  return s;
}

function b64url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** WebCrypto wants ArrayBuffer-backed views; copy only when needed. */
function view(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

const support = new Map<Curve, Promise<boolean>>();
const hexBytes = (h: string): Uint8Array => Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));
/** Valid public keys to probe with: RFC 8032 §7.1 test 1 and RFC 7748 §6.1 (Alice). */
const PROBE_KEYS: Record<Curve, Uint8Array> = {
  Ed25519: hexBytes('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'),
  X25519: hexBytes('8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a'),
};

/** Whether this runtime's WebCrypto implements `curve`; probed once. */
function hasCurve(curve: Curve): Promise<boolean> {
  let probe = support.get(curve);
  if (probe === undefined) {
    const usages: KeyUsage[] = curve === 'Ed25519' ? ['verify'] : [];
    const base = PROBE_KEYS[curve];
    probe = subtle()
      .importKey('raw', view(base), { name: curve }, false, usages)
      .then(
        () => true,
        () => false,
      );
    support.set(curve, probe);
  }
  return probe;
}

/** CryptoKey cache by array identity. */
function keyCache(): (bytes: Uint8Array, make: () => Promise<CryptoKey>) => Promise<CryptoKey> {
  const map = new WeakMap<Uint8Array, Promise<CryptoKey>>();
  return (bytes, make) => {
    let key = map.get(bytes);
    if (key === undefined) {
      key = make();
      map.set(bytes, key);
      key.catch(() => map.delete(bytes));
    }
    return key;
  };
}

const privCache = keyCache();
const pubCache = keyCache();

function importPrivate(curve: Curve, kp: RawKeyPair): Promise<CryptoKey> {
  const usages: KeyUsage[] = curve === 'Ed25519' ? ['sign'] : ['deriveBits'];
  const jwk: JsonWebKey = { kty: 'OKP', crv: curve, d: b64url(kp.privateKey), x: b64url(kp.publicKey) };
  return privCache(kp.privateKey, () => subtle().importKey('jwk', jwk, { name: curve }, false, usages));
}

function importPublic(curve: Curve, pub: Uint8Array): Promise<CryptoKey> {
  const usages: KeyUsage[] = curve === 'Ed25519' ? ['verify'] : [];
  return pubCache(pub, () => subtle().importKey('raw', view(pub), { name: curve }, false, usages));
}

type CurveCheck = (curve: Curve) => Promise<boolean>;

/**
 * A signature that only a cofactored equation accepts: RFC 8032 test 1's key,
 * `R = [r]B + T` with `T` of order 8, `S = r + k·a` (built in
 * test/fixtures/ed25519/edge-cases.ts). The SDK's pre-checks pass it, so the
 * equation alone decides: a WebCrypto that accepts it checks another equation
 * than the SDK's rule, and @noble is used instead.
 */
const COFACTORED_ONLY = {
  message: hexBytes('616e79206d65737361676520617420616c6c'),
  signature: hexBytes(
    'c2ecc2af9bfefd06ee0f9cbb9adf4abda71f6a01db3f1a78458754856f6bd5c4' +
      '0cb6bc5443c3492aebbb73bc9383cdc373e0dd41a63f246e96888201a8d47308',
  ),
};
let cofactorless: Promise<boolean> | undefined;

/** Whether this runtime's WebCrypto Ed25519 checks the cofactorless equation; probed once. */
function webCryptoCofactorless(): Promise<boolean> {
  cofactorless ??= importPublic('Ed25519', PROBE_KEYS.Ed25519)
    .then((key) =>
      subtle().verify(
        { name: 'Ed25519' },
        key,
        view(COFACTORED_ONLY.signature),
        view(COFACTORED_ONLY.message),
      ),
    )
    .then(
      (accepted) => !accepted,
      () => false,
    );
  return cofactorless;
}

async function x25519Shared(
  useWebCrypto: CurveCheck,
  kp: RawKeyPair,
  peer: Uint8Array,
): Promise<Uint8Array | undefined> {
  if (peer.length !== 32 || kp.privateKey.length !== 32) return undefined;
  try {
    if (!(await useWebCrypto('X25519'))) return x25519.getSharedSecret(kp.privateKey, peer);
    const [priv, pub] = await Promise.all([importPrivate('X25519', kp), importPublic('X25519', peer)]);
    const bits = new Uint8Array(await subtle().deriveBits({ name: 'X25519', public: pub }, priv, 256));
    return bits.every((b) => b === 0) ? undefined : bits;
  } catch {
    return undefined; // invalid point or all-zero shared secret
  }
}

async function edSign(useWebCrypto: CurveCheck, kp: RawKeyPair, message: Uint8Array): Promise<Uint8Array> {
  if (!(await useWebCrypto('Ed25519'))) return ed25519.sign(message, kp.privateKey);
  const key = await importPrivate('Ed25519', kp);
  return new Uint8Array(await subtle().sign({ name: 'Ed25519' }, key, view(message)));
}

async function edVerify(
  useWebCrypto: CurveCheck,
  pub: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  // The SDK's rule (ed25519-rules.ts) first; then WebCrypto only where it checks the same equation.
  if (ed25519SignatureProblem(pub, signature) !== undefined) return false;
  try {
    if (!(await useWebCrypto('Ed25519')) || !(await webCryptoCofactorless())) {
      return ed25519VerifyStrict(pub, message, signature);
    }
    const key = await importPublic('Ed25519', pub);
    return await subtle().verify({ name: 'Ed25519' }, key, view(signature), view(message));
  } catch {
    return false;
  }
}

async function aesKey(key: Uint8Array, usage: KeyUsage): Promise<CryptoKey> {
  return subtle().importKey('raw', view(key), { name: 'AES-GCM' }, false, [usage]);
}

async function gcmEncrypt(
  key: Uint8Array,
  nonce: Uint8Array,
  pt: Uint8Array,
  aad: Uint8Array,
): Promise<Uint8Array> {
  const params: AesGcmParams = {
    name: 'AES-GCM',
    iv: view(nonce),
    additionalData: view(aad),
    tagLength: 128,
  };
  return new Uint8Array(await subtle().encrypt(params, await aesKey(key, 'encrypt'), view(pt)));
}

async function gcmDecrypt(
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
): Promise<Uint8Array | undefined> {
  if (sealed.length < 16) return undefined;
  const params: AesGcmParams = {
    name: 'AES-GCM',
    iv: view(nonce),
    additionalData: view(aad),
    tagLength: 128,
  };
  try {
    return new Uint8Array(await subtle().decrypt(params, await aesKey(key, 'decrypt'), view(sealed)));
  } catch {
    return undefined;
  }
}

/** Options of {@link createPortableBackend}. */
export interface PortableBackendOptions {
  /**
   * Where Ed25519 and X25519 come from: `auto` uses WebCrypto when the runtime
   * implements the curve and @noble/curves otherwise; `noble` always uses @noble.
   * @defaultValue 'auto'
   */
  readonly curves?: 'auto' | 'noble';
}

/**
 * Builds a portable backend (WebCrypto with `@noble/*` fallbacks). Asynchronous
 * only: use it with `sealAsync` / `openAsync`.
 *
 * @example
 * ```ts
 * const pureJs = createPortableBackend({ curves: 'noble' });
 * ```
 */
export function createPortableBackend(options: PortableBackendOptions = {}): CryptoBackend {
  const useWebCrypto: CurveCheck = options.curves === 'noble' ? () => Promise.resolve(false) : hasCurve;
  const asyncPrimitives: AsyncPrimitives = {
    x25519: (kp, peer) => x25519Shared(useWebCrypto, kp, peer),
    ed25519Sign: (kp, message) => edSign(useWebCrypto, kp, message),
    ed25519Verify: (pub, message, signature) => edVerify(useWebCrypto, pub, message, signature),
    sha256: async (data) => new Uint8Array(await subtle().digest('SHA-256', view(data))),
    hmacSha256: async (key, data) => hmac(sha256, key, data),
    aesGcmEncrypt: gcmEncrypt,
    aesGcmDecrypt: gcmDecrypt,
  };
  return Object.freeze({
    name: options.curves === 'noble' ? 'portable-noble' : 'portable',
    randomBytes(length: number): Uint8Array {
      const out = new Uint8Array(length);
      globalThis.crypto.getRandomValues(out);
      return out;
    },
    x25519PublicKey: (privateKey: Uint8Array): Uint8Array => x25519.getPublicKey(privateKey),
    ed25519PublicKey: (privateKey: Uint8Array): Uint8Array => ed25519.getPublicKey(privateKey),
    sha256: (data: Uint8Array): Uint8Array => sha256(data),
    sync: undefined,
    async: asyncPrimitives,
  });
}

/**
 * The portable backend (WebCrypto with `@noble/*` fallbacks). Asynchronous only:
 * use it with `sealAsync` / `openAsync`.
 *
 * @example
 * ```ts
 * import { sealAsync, portableBackend } from 'agent-messaging-sdk/crypto';
 * const wire = await sealAsync(payload, { ...options, backend: portableBackend });
 * ```
 */
export const portableBackend: CryptoBackend = createPortableBackend();
