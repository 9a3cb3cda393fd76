/**
 * What an HMAC-SHA256 backend of the webhook verifier and signer does
 * (types only): `hmac.node.ts` and `hmac.web.ts` implement it, `hmac.ts`
 * picks one.
 *
 * @module
 */
/** A key prepared by a backend for one secret. Opaque. */
export interface HmacKey {
  readonly backend: HmacBackendName;
}

/** Which HMAC implementation to use. `auto` picks node:crypto where present, WebCrypto elsewhere. */
export type HmacBackendName = 'node' | 'web';

/** What a backend does: prepare keys once, then sign and verify `prefix || body`. */
export interface HmacBackend {
  readonly name: HmacBackendName;
  /** True when every method returns a plain value, never a promise (node:crypto). */
  readonly sync: boolean;
  /** Prepares the key for one secret (its raw bytes). */
  importKey(secret: Uint8Array): HmacKey | Promise<HmacKey>;
  /**
   * True when `signature` (32 bytes) equals HMAC-SHA256(key, prefix || body),
   * compared in constant time. `prefix` is ASCII.
   */
  verify(key: HmacKey, prefix: string, body: Uint8Array, signature: Uint8Array): boolean | Promise<boolean>;
  /** HMAC-SHA256(key, prefix || body). `prefix` is ASCII. */
  sign(key: HmacKey, prefix: string, body: Uint8Array): Uint8Array | Promise<Uint8Array>;
}
