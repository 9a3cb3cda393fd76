/**
 * Agent key pairs: X25519 for encryption, Ed25519 for signing. Keys are raw
 * 32-byte arrays (base64 on the wire). Private keys are made and held on the
 * client; only public keys and password-encrypted backups leave it.
 *
 * @module
 */
import { toBase64 } from '../core/encoding.js';
import { ValidationError } from '../core/errors/index.js';
import { defaultBackend } from './backend/node-default.js';
import type { CryptoBackend } from './backend/types.js';

/**
 * A key pair of raw 32-byte keys. Pairs made by this SDK ({@link generateKeys},
 * {@link keysFromPrivate}, `restoreKeyBackup`, the key store) keep `privateKey`
 * non-enumerable and redact it from `JSON.stringify` and `util.inspect`
 * (`console.log`), see {@link redactedKeyPair}.
 */
export interface KeyPair {
  /** Raw 32-byte public key. */
  readonly publicKey: Uint8Array;
  /** Raw 32-byte private key (X25519 scalar or Ed25519 seed). */
  readonly privateKey: Uint8Array;
}

/** The two key pairs of an agent. */
export interface AgentKeys {
  /** X25519 key pair: receives content keys. */
  readonly encryption: KeyPair;
  /** Ed25519 key pair: signs envelopes. */
  readonly signing: KeyPair;
}

/** Options of {@link generateKeys} and {@link keysFromPrivate}. */
export interface KeysOptions {
  /**
   * Backend that derives the public keys.
   * @defaultValue node:crypto on Node, else the portable backend
   */
  readonly backend?: CryptoBackend;
}

/** Length of every raw key, in bytes. */
export const KEY_BYTES = 32;
/** Length of the binary key fingerprint carried in envelopes, in bytes. */
export const FINGERPRINT_BYTES = 8;

function checkKey(key: Uint8Array, name: string): void {
  if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) {
    throw new ValidationError({
      message: `${name} must be a raw ${KEY_BYTES}-byte key`,
      issues: [{ path: [name], message: `expected ${KEY_BYTES} bytes` }],
    });
  }
}

/**
 * Generates a fresh X25519 + Ed25519 key set from the platform CSPRNG.
 *
 * @example
 * ```ts
 * const keys = generateKeys();
 * toBase64(keys.encryption.publicKey); // upload as public_key
 * ```
 */
export function generateKeys(options: KeysOptions = {}): AgentKeys {
  const backend = options.backend ?? defaultBackend();
  return keysFromPrivate(backend.randomBytes(KEY_BYTES), backend.randomBytes(KEY_BYTES), options);
}

/**
 * Rebuilds an agent's key set from its two raw private keys, deriving the
 * public keys. The arrays are kept (not copied); the pairs redact them from
 * `JSON.stringify` and `util.inspect` ({@link redactedKeyPair}).
 *
 * @throws {@link index!ValidationError | ValidationError} when a key is not 32 bytes.
 * @example
 * ```ts
 * const keys = keysFromPrivate(fromBase64(x)!, fromBase64(ed)!);
 * ```
 */
export function keysFromPrivate(
  encryptionPrivate: Uint8Array,
  signingPrivate: Uint8Array,
  options: KeysOptions = {},
): AgentKeys {
  checkKey(encryptionPrivate, 'encryptionPrivate');
  checkKey(signingPrivate, 'signingPrivate');
  const backend = options.backend ?? defaultBackend();
  const encryption = redactedKeyPair(backend.x25519PublicKey(encryptionPrivate), encryptionPrivate);
  const signing = redactedKeyPair(backend.ed25519PublicKey(signingPrivate), signingPrivate);
  return Object.freeze({ encryption, signing });
}

/** What `JSON.stringify` and `util.inspect` show instead of a private key. */
export const REDACTED_PRIVATE_KEY = '[redacted]';

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * A frozen key pair whose private key stays out of logs: `privateKey` is
 * non-enumerable (so spreads, `Object.keys`, `structuredClone` and test
 * snapshots leave it out), and `toJSON` / `util.inspect` show the public key
 * (base64) with `privateKey: '[redacted]'`. Reading `pair.privateKey` works as usual.
 * `Symbol.for('nodejs.util.inspect.custom')` is used so that no `node:util`
 * import is needed and the pair stays portable.
 *
 * @example
 * ```ts
 * JSON.stringify(redactedKeyPair(pub, priv)); // {"publicKey":"…","privateKey":"[redacted]"}
 * ```
 */
export function redactedKeyPair(publicKey: Uint8Array, privateKey: Uint8Array): KeyPair {
  const summary = (): { publicKey: string; privateKey: string } => ({
    publicKey: toBase64(publicKey),
    privateKey: REDACTED_PRIVATE_KEY,
  });
  const pair = { publicKey } as { publicKey: Uint8Array; privateKey: Uint8Array };
  Object.defineProperties(pair, {
    privateKey: { value: privateKey, enumerable: false },
    toJSON: { value: summary, enumerable: false },
    [INSPECT]: { value: summary, enumerable: false },
  });
  return Object.freeze(pair);
}

const fingerprints = new WeakMap<Uint8Array, Uint8Array>();

/**
 * The binary fingerprint of a public key: the first 8 bytes of SHA-256 of the
 * raw 32-byte key. Envelopes carry it beside each recipient id. Cached per array.
 *
 * @throws {@link index!ValidationError | ValidationError} when the key is not 32 bytes.
 */
export function fingerprintBytes(publicKey: Uint8Array, backend?: CryptoBackend): Uint8Array {
  let fp = fingerprints.get(publicKey);
  if (fp === undefined) {
    checkKey(publicKey, 'publicKey');
    fp = (backend ?? defaultBackend()).sha256(publicKey).slice(0, FINGERPRINT_BYTES);
    fingerprints.set(publicKey, fp);
  }
  return fp;
}

/**
 * A short, stable id of a public key: 16 lowercase hex characters, the first
 * 8 bytes of SHA-256 over the raw 32-byte key. Identifies which key generation
 * (current or retired) an envelope's key wrap was made for. Not secret.
 *
 * @throws {@link index!ValidationError | ValidationError} when the key is not 32 bytes.
 * @example
 * ```ts
 * keyFingerprint(keys.encryption.publicKey); // e.g. '3f1a9c0b7d2e4458'
 * ```
 */
export function keyFingerprint(publicKey: Uint8Array): string {
  let out = '';
  for (const b of fingerprintBytes(publicKey)) out += b.toString(16).padStart(2, '0');
  return out;
}
