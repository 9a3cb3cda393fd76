/**
 * node:fs/promises and node:path for the file key store, reached through
 * `process.getBuiltinModule` on first use instead of static imports, so the
 * `./crypto` entry bundles for runtimes without them (Cloudflare Workers,
 * browsers): a bundler sees no `node:` import. Node ≥ 20.16, Bun and Deno
 * have `process.getBuiltinModule`.
 *
 * @module
 */
import type * as NodeFs from 'node:fs/promises';
import type * as NodePath from 'node:path';
import { ConfigurationError } from '../../core/errors/configuration-error.js';

interface ProcessLike {
  getBuiltinModule?: (id: string) => unknown;
}

function builtin<T>(id: string): T {
  const proc = (globalThis as { process?: ProcessLike }).process;
  const mod = proc?.getBuiltinModule?.(id) as T | undefined;
  if (mod === undefined) {
    throw new ConfigurationError({
      option: 'keyStore',
      message: `The file key store needs ${id} (Node, Bun, Deno); on this runtime pass a key store of your own or a MemoryKeyStore.`,
    });
  }
  return mod;
}

/** node:fs/promises, or a ConfigurationError naming what to use instead. */
export const nodeFs = (): typeof NodeFs => builtin<typeof NodeFs>('node:fs/promises');

/** node:path, or a ConfigurationError naming what to use instead. */
export const nodePath = (): typeof NodePath => builtin<typeof NodePath>('node:path');
