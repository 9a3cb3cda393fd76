/**
 * Default backend selection: node:crypto where the runtime has it, otherwise
 * the portable WebCrypto backend. Kept in a `backend/node*.ts` file because it
 * is the one place that decides on the runtime.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/index.js';
import { nodeBackend } from './node.js';
import { portableBackend } from './portable.js';
import type { CryptoBackend, SyncCryptoBackend } from './types.js';

/**
 * The backend used when none is passed: node:crypto when available, else the
 * portable backend.
 *
 * @example
 * ```ts
 * defaultBackend().name; // 'node' on Node ≥ 20.16
 * ```
 */
export function defaultBackend(): CryptoBackend {
  return nodeBackend() ?? portableBackend;
}

/**
 * The backend used by the synchronous `seal` / `open` when none is passed.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} when the runtime has no synchronous backend
 * (no node:crypto); use `sealAsync` / `openAsync` there.
 */
export function defaultSyncBackend(): SyncCryptoBackend {
  const backend = nodeBackend();
  if (backend === undefined) {
    throw new ConfigurationError({
      message:
        'No synchronous crypto backend on this runtime (node:crypto missing); use sealAsync/openAsync.',
      option: 'backend',
    });
  }
  return backend;
}

/**
 * Narrows a backend to one with synchronous primitives.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} when `backend.sync` is missing.
 */
export function requireSync(backend: CryptoBackend): SyncCryptoBackend {
  if (backend.sync === undefined) {
    throw new ConfigurationError({
      message: `The "${backend.name}" crypto backend is asynchronous only; use sealAsync/openAsync.`,
      option: 'backend',
    });
  }
  return backend as SyncCryptoBackend;
}
