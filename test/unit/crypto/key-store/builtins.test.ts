import { afterEach, describe, expect, it, vi } from 'vitest';
import { isConfigurationError } from '../../../../packages/sdk/src/core/errors/guards.js';
import { nodeFs, nodePath } from '../../../../packages/sdk/src/crypto/key-store/file-system-builtins.js';

describe('the file key store on a runtime without node:fs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('loads node:fs/promises and node:path on Node', () => {
    expect(typeof nodeFs().open).toBe('function');
    expect(nodePath().join('a', 'b')).toMatch(/^a[\\/]b$/);
  });

  it('throws ConfigurationError naming the alternative when the built-in is missing', () => {
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
    for (const load of [nodeFs, nodePath]) {
      const err = (() => {
        try {
          load();
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(isConfigurationError(err)).toBe(true);
      expect((err as Error).message).toMatch(/MemoryKeyStore/);
    }
  });
});
