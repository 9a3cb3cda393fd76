/** Encrypted files on a runtime without node:crypto: a ConfigurationError that says so, not a crash at import. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isConfigurationError } from '../../../packages/sdk/src/core/errors/index.js';

const proc = process as unknown as { getBuiltinModule: (id: string) => unknown };
const original = proc.getBuiltinModule;
afterEach(() => {
  proc.getBuiltinModule = original;
  vi.resetModules();
});

describe('file AEAD without node:crypto', () => {
  it('imports fine and refuses on first use with a ConfigurationError', async () => {
    vi.resetModules();
    proc.getBuiltinModule = (id) => (id === 'node:crypto' ? undefined : original.call(process, id));
    const aead = await import('../../../packages/sdk/src/crypto/file-stream/aead.node.js');
    let caught: unknown;
    try {
      aead.randomBytesOf(16);
    } catch (err) {
      caught = err;
    }
    expect(isConfigurationError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/node:crypto/);
  });
});
