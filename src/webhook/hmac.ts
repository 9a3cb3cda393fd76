/**
 * The HMAC-SHA256 seam of the webhook verifier and signer.
 *
 * Two backends give identical results: node:crypto (`hmac.node.ts`:
 * synchronous, key material prepared once per secret, constant-time compare
 * with `timingSafeEqual`) and WebCrypto (`hmac.web.ts`: a `CryptoKey`
 * imported once per secret, constant-time compare inside `crypto.subtle.verify`).
 * node:crypto is used wherever `process.getBuiltinModule('node:crypto')`
 * answers (Node ≥ 20.16, Bun, Deno); everything else (workers, browsers) uses
 * WebCrypto. The choice is made synchronously, so on Node a verifier can
 * verify synchronously as soon as it is constructed.
 *
 * @module
 */
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { nodeHmacBackend } from './hmac.node.js';
import { webHmacBackend } from './hmac.web.js';

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

/**
 * The backend to use, chosen synchronously.
 *
 * @param preference - `auto` (default), or force `node` / `web`.
 * @throws {@link index!ConfigurationError | ConfigurationError} when `node` is forced but node:crypto is unavailable,
 *   or no backend at all is available.
 */
export function resolveHmacBackend(preference: HmacBackendName | 'auto' = 'auto'): HmacBackend {
  if (preference !== 'web') {
    const node = nodeHmacBackend();
    if (node !== undefined) return node;
    if (preference === 'node') {
      throw new ConfigurationError({
        option: 'crypto',
        message: 'Option "crypto" is "node" but node:crypto is not available here.',
      });
    }
  }
  if (typeof globalThis.crypto?.subtle?.importKey !== 'function') {
    throw new ConfigurationError({
      option: 'crypto',
      message: 'Neither node:crypto nor WebCrypto (crypto.subtle) is available to compute HMAC-SHA256.',
    });
  }
  return webHmacBackend;
}
