import { describe, expect, it } from 'vitest';
import { isConfigurationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  createPasswordHasher,
  DEFAULT_PASSWORD_HASHING,
} from '../../../../packages/dev/src/server/auth/password-hash.js';

const fast = createPasswordHasher({ logN: 10, parallelization: 1 });

describe('scrypt password hashing', () => {
  it('the production default is N = 2^15, r = 8, p = 3, and it round-trips', async () => {
    expect(DEFAULT_PASSWORD_HASHING).toEqual({ logN: 15, blockSize: 8, parallelization: 3 });
    const slow = createPasswordHasher();
    const stored = await slow.hash('production password');
    expect(stored).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await slow.verify('production password', stored)).toBe(true);
  });

  it('verifies the right password only; salts differ per hash', async () => {
    const a = await fast.hash('correct horse');
    const b = await fast.hash('correct horse');
    expect(a).not.toBe(b);
    expect(await fast.verify('correct horse', a)).toBe(true);
    expect(await fast.verify('correct horsE', a)).toBe(false);
    expect(await fast.verify('', a)).toBe(false);
  });

  it('reads the cost from the stored hash, so a new default never locks anyone out', async () => {
    const stored = await fast.hash('old account');
    const other = createPasswordHasher({ logN: 11, blockSize: 4, parallelization: 2 });
    expect(await other.verify('old account', stored)).toBe(true);
  });

  it('normalises to NFC: the same text typed two ways matches', async () => {
    const stored = await fast.hash('caf\u00e9 au lait');
    expect(await fast.verify('cafe\u0301 au lait', stored)).toBe(true);
  });

  it('is false for a malformed stored hash, never an exception', async () => {
    for (const stored of ['', 'plain', '$scrypt$ln=10,r=8,p=1$$', '$bcrypt$whatever']) {
      expect(await fast.verify('x', stored)).toBe(false);
    }
  });

  it('the dummy verification takes the same path as a failed one', async () => {
    await expect(fast.verifyDummy('anything')).resolves.toBeUndefined();
  });

  it('refuses out-of-range parameters with a ConfigurationError naming the option', () => {
    for (const [options, option] of [
      [{ logN: 0 }, 'passwordHashing.logN'],
      [{ logN: 10.5 }, 'passwordHashing.logN'],
      [{ blockSize: 0 }, 'passwordHashing.blockSize'],
      [{ parallelization: 17 }, 'passwordHashing.parallelization'],
    ] as const) {
      try {
        createPasswordHasher(options);
        expect.unreachable();
      } catch (err) {
        expect(isConfigurationError(err) && err.option).toBe(option);
      }
    }
  });
});
