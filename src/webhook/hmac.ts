/**
 * The HMAC-SHA256 seam of the webhook verifier and signer.
 *
 * Two backends give identical results: node:crypto (`hmac.node.ts`, a key
 * object prepared once per secret, constant-time compare with
 * `timingSafeEqual`) and WebCrypto (`hmac.web.ts`, a `CryptoKey` imported once
 * per secret, constant-time compare inside `crypto.subtle.verify`). The Node
 * backend is chosen at run time when `process.versions.node` is set and
 * node:crypto can be imported; everything else (workers, Deno, browsers) uses
 * WebCrypto.
 *
 * @module
 */
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { webHmacBackend } from './hmac.web.js';

/** A key prepared by a backend for one secret. Opaque. */
export interface HmacKey {
  readonly backend: HmacBackendName;
}

/** Which HMAC implementation to use. `auto` picks node:crypto on Node, WebCrypto elsewhere. */
export type HmacBackendName = 'node' | 'web';

/** What a backend does: prepare keys once, then sign and verify `prefix || body`. */
export interface HmacBackend {
  readonly name: HmacBackendName;
  /** Prepares the key for one secret (its raw bytes). */
  importKey(secret: Uint8Array): Promise<HmacKey>;
  /**
   * True when `signatureHex` (64 hex digits, checked by the caller) equals
   * HMAC-SHA256(key, prefix || body), compared in constant time. `prefix` is ASCII.
   */
  verify(key: HmacKey, prefix: string, body: Uint8Array, signatureHex: string): boolean | Promise<boolean>;
  /** HMAC-SHA256(key, prefix || body). `prefix` is ASCII. */
  sign(key: HmacKey, prefix: string, body: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

let nodeBackend: Promise<HmacBackend | undefined> | undefined;

function isNode(): boolean {
  const proc = (globalThis as { process?: { versions?: { node?: unknown } } }).process;
  return typeof proc?.versions?.node === 'string';
}

function loadNodeBackend(): Promise<HmacBackend | undefined> {
  nodeBackend ??= isNode()
    ? import('./hmac.node.js').then(
        (m) => m.nodeHmacBackend,
        () => undefined,
      )
    : Promise.resolve(undefined);
  return nodeBackend;
}

/**
 * Resolves the backend to use.
 *
 * @param preference - `auto` (default), or force `node` / `web`.
 * @throws {@link ConfigurationError} when `node` is forced but node:crypto is unavailable,
 *   or `web` is forced but `crypto.subtle` is absent.
 */
export async function resolveHmacBackend(
  preference: HmacBackendName | 'auto' = 'auto',
): Promise<HmacBackend> {
  if (preference !== 'web') {
    const node = await loadNodeBackend();
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
