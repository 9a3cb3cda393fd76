/**
 * The one small interface every crypto backend implements. The envelope
 * construction (layout, key schedule, order of checks) is written once against
 * it; a backend only supplies primitives.
 *
 * @module
 */

/** An X25519 or Ed25519 key pair: raw 32-byte keys. */
export interface RawKeyPair {
  readonly publicKey: Uint8Array;
  readonly privateKey: Uint8Array;
}

/**
 * Synchronous primitives available in every backend: randomness, public-key
 * derivation and SHA-256 (for fingerprints).
 */
export interface KeyPrimitives {
  /** `length` bytes from the platform CSPRNG. */
  randomBytes(length: number): Uint8Array;
  /** The X25519 public key of a raw 32-byte private key. */
  x25519PublicKey(privateKey: Uint8Array): Uint8Array;
  /** The Ed25519 public key of a raw 32-byte private key (seed). */
  ed25519PublicKey(privateKey: Uint8Array): Uint8Array;
  /** SHA-256 of `data`. */
  sha256(data: Uint8Array): Uint8Array;
}

/** An incremental hash: feed it with `update`, read it with `digest` (once). */
export interface IncrementalHash {
  update(data: Uint8Array): void;
  digest(): Uint8Array;
}

/**
 * Synchronous primitives used by `seal` / `open`. Only backends that can run
 * them on the calling thread provide these (node:crypto does; WebCrypto cannot).
 *
 * None of these throws on bad input: they return `undefined` / `false`.
 */
export interface SyncPrimitives {
  /** X25519 shared secret, or `undefined` for an invalid key or an all-zero result. */
  x25519(keyPair: RawKeyPair, peerPublicKey: Uint8Array): Uint8Array | undefined;
  /** Ed25519 signature (64 bytes) of `message`. */
  ed25519Sign(keyPair: RawKeyPair, message: Uint8Array): Uint8Array;
  /** True when `signature` is a valid Ed25519 signature of `message` under `publicKey`. */
  ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
  /** SHA-256 of `data`. */
  sha256(data: Uint8Array): Uint8Array;
  /** HMAC-SHA256 of `data` under `key`. */
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array;
  /**
   * An incremental SHA-256 (stream transcripts hash every delta once). Optional:
   * without it, callers keep the input and call {@link SyncPrimitives.sha256} once.
   */
  readonly sha256Incremental?: () => IncrementalHash;
  /** AES-256-GCM: ciphertext followed by the 16-byte tag. */
  aesGcmEncrypt(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Uint8Array;
  /**
   * AES-256-GCM written into `out` at `offset`: ciphertext, then the 16-byte tag
   * (`plaintext.length + 16` bytes). `plaintext` may be the very bytes it
   * overwrites (encryption in place). Optional: without it, callers copy the
   * result of {@link SyncPrimitives.aesGcmEncrypt}.
   */
  readonly aesGcmEncryptInto?: (
    key: Uint8Array,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    aad: Uint8Array,
    out: Uint8Array,
    offset: number,
  ) => void;
  /** AES-256-GCM open of ciphertext‖tag, or `undefined` when the tag does not match. */
  aesGcmDecrypt(
    key: Uint8Array,
    nonce: Uint8Array,
    sealed: Uint8Array,
    aad: Uint8Array,
  ): Uint8Array | undefined;
}

/** The asynchronous form of {@link SyncPrimitives}, implemented by every backend. */
export type AsyncPrimitives = {
  readonly [K in Exclude<keyof SyncPrimitives, 'sha256Incremental' | 'aesGcmEncryptInto'>]: (
    ...args: Parameters<SyncPrimitives[K]>
  ) => Promise<ReturnType<SyncPrimitives[K]>>;
};

/** A set of crypto primitives the envelope construction runs on. */
export interface CryptoBackend extends KeyPrimitives {
  /** Short name for logs and benchmarks, e.g. `node` or `portable`. */
  readonly name: string;
  /** Synchronous primitives, when the backend has them. */
  readonly sync: SyncPrimitives | undefined;
  /** Asynchronous primitives (always present). */
  readonly async: AsyncPrimitives;
}

/** A backend that can also run `seal` / `open` synchronously. */
export interface SyncCryptoBackend extends CryptoBackend {
  readonly sync: SyncPrimitives;
}
