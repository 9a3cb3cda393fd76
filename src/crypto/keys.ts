/**
 * Agent key pairs: X25519 for encryption, Ed25519 for signing. Keys are raw
 * 32-byte arrays (base64 on the wire). Private keys are made and held on the
 * client; only public keys and password-encrypted backups leave it.
 *
 * @module
 */
import { ValidationError } from '../core/errors/index.js';
import { defaultBackend } from './backend/node-default.js';
import type { CryptoBackend } from './backend/types.js';

/** A key pair of raw 32-byte keys. */
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
 * public keys.
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
  const encryption = Object.freeze({
    publicKey: backend.x25519PublicKey(encryptionPrivate),
    privateKey: encryptionPrivate,
  });
  const signing = Object.freeze({
    publicKey: backend.ed25519PublicKey(signingPrivate),
    privateKey: signingPrivate,
  });
  return Object.freeze({ encryption, signing });
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
