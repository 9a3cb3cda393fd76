import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { LIMITS } from '../../../../packages/sdk/src/core/limits.js';
import { KeyRing, MemoryKeyStore } from '../../../../packages/sdk/src/crypto/key-store/index.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';

describe('MemoryKeyStore', () => {
  it('is empty, then holds a copy of what was saved, then is wiped', async () => {
    const store = new MemoryKeyStore();
    expect(await store.load()).toBeUndefined();
    const keys = generateKeys();
    const ring = KeyRing.create(keys, 1000);
    await store.save(ring);
    const back = await store.load();
    expect(back?.current.keys.encryption.privateKey).toEqual(keys.encryption.privateKey);
    expect(back?.current.keys.encryption.privateKey).not.toBe(keys.encryption.privateKey);
    await store.wipe();
    expect(await store.load()).toBeUndefined();
  });

  it('erases expired generations on load', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const store = new MemoryKeyStore({ clock });
    await store.save(KeyRing.create(generateKeys(), clock.now()).rotate(generateKeys(), clock.now()));
    expect((await store.load())?.retired).toHaveLength(1);
    clock.advance(LIMITS.TOKEN_GRACE_MS);
    expect((await store.load())?.retired).toHaveLength(0);
  });
});
