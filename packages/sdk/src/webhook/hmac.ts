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
import type { HmacBackend, HmacBackendName } from './hmac-backend.js';

export type { HmacBackend, HmacBackendName, HmacKey } from './hmac-backend.js';

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
