import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { isCryptoError } from '../../../../packages/sdk/src/core/errors/index.js';
import { LIMITS } from '../../../../packages/sdk/src/core/limits.js';
import {
  FileKeyStore,
  KeyRing,
  MemoryKeyStore,
  loadOrCreateKeys,
  rotateStoredKeys,
} from '../../../../packages/sdk/src/crypto/key-store/index.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';

const T0 = Date.parse('2026-02-01T00:00:00Z');

describe('loadOrCreateKeys', () => {
  it('creates and saves keys once, then loads the same keys', async () => {
    const clock = new ManualClock(T0);
    const store = new MemoryKeyStore({ clock });
    let generated = 0;
    const generate = () => (generated++, generateKeys());
    const first = await loadOrCreateKeys(store, { clock, generate });
    expect(first.created).toBe(true);
    expect(first.ring.current.createdAt).toBe(T0);
    clock.advance(1000);
    const second = await loadOrCreateKeys(store, { clock, generate });
    expect(second.created).toBe(false);
    expect(second.ring.current.keys.encryption.privateKey).toEqual(
      first.ring.current.keys.encryption.privateKey,
    );
    expect(generated).toBe(1);
  });

  it('concurrent first starts on one empty directory: one creates, the others load its ring', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ams-loc-'));
    try {
      const directory = join(root, 'shared');
      const results = await Promise.all(
        Array.from({ length: 5 }, () => loadOrCreateKeys(new FileKeyStore({ directory }))),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const winner = results.find((r) => r.created)!.ring.current.keys.encryption.privateKey;
      for (const r of results) expect(r.ring.current.keys.encryption.privateKey).toEqual(winner);
      const again = await loadOrCreateKeys(new FileKeyStore({ directory }));
      expect(again.created).toBe(false);
      expect(again.ring.current.keys.encryption.privateKey).toEqual(winner);
      expect((await readdir(directory)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('saveIfAbsent stores only into an empty store (memory and file)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ams-loc-'));
    try {
      for (const store of [new MemoryKeyStore(), new FileKeyStore({ directory: join(root, 'k') })]) {
        const a = KeyRing.create(generateKeys(), T0);
        const b = KeyRing.create(generateKeys(), T0);
        expect(await store.saveIfAbsent(a)).toBe(true);
        expect(await store.saveIfAbsent(b)).toBe(false);
        expect((await store.load())?.current.keys.signing.publicKey).toEqual(
          a.current.keys.signing.publicKey,
        );
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('falls back to load-then-save for a store without saveIfAbsent', async () => {
    const inner = new MemoryKeyStore();
    const store = { load: () => inner.load(), save: (r: KeyRing) => inner.save(r), wipe: () => inner.wipe() };
    expect((await loadOrCreateKeys(store)).created).toBe(true);
    expect((await loadOrCreateKeys(store)).created).toBe(false);
  });

  it('a store that refuses the ring but then loads nothing is an I/O error, not new keys', async () => {
    const store = {
      load: async () => undefined,
      save: async () => undefined,
      wipe: async () => undefined,
      saveIfAbsent: async () => false,
    };
    let caught: unknown;
    try {
      await loadOrCreateKeys(store);
    } catch (err) {
      caught = err;
    }
    expect(isCryptoError(caught, 'KEY_STORE_IO')).toBe(true);
  });

  it('never regenerates over a corrupt store', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ams-loc-'));
    try {
      const dir = join(root, 'keys');
      await mkdir(dir);
      const file = join(dir, 'keys.json');
      await writeFile(file, 'not json at all');
      let caught: unknown;
      try {
        await loadOrCreateKeys(new FileKeyStore({ directory: dir }));
      } catch (err) {
        caught = err;
      }
      expect(isCryptoError(caught, 'KEY_STORE_CORRUPT')).toBe(true);
      expect((caught as { file?: string }).file).toBe(file);
      expect(await readFile(file, 'utf8')).toBe('not json at all');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('rotateStoredKeys', () => {
  it('rotates with the 7-day grace by default and the old key leaves the store after it', async () => {
    const clock = new ManualClock(T0);
    const store = new MemoryKeyStore({ clock });
    const { ring: first } = await loadOrCreateKeys(store, { clock });
    clock.advance(60_000);
    const newKeys = generateKeys();
    const rotated = await rotateStoredKeys(store, { clock, newKeys });
    expect(rotated.current.keys).toBe(newKeys);
    expect(rotated.retired[0]?.notAfter).toBe(T0 + 60_000 + LIMITS.TOKEN_GRACE_MS);
    const loaded = await store.load();
    expect(loaded?.candidates(clock.now()).map((p) => p.publicKey)).toEqual([
      newKeys.encryption.publicKey,
      first.current.keys.encryption.publicKey,
    ]);
    clock.advance(LIMITS.TOKEN_GRACE_MS);
    expect((await store.load())?.candidates(clock.now())).toHaveLength(1);
  });

  it('drops the old key at once with graceMs 0, and starts a ring on an empty store', async () => {
    const clock = new ManualClock(T0);
    const store = new MemoryKeyStore({ clock });
    const fresh = await rotateStoredKeys(store, { clock });
    expect(fresh.retired).toEqual([]);
    const emergency = await rotateStoredKeys(store, { clock, graceMs: 0 });
    expect(emergency.retired).toEqual([]);
    expect(emergency.current.keys.encryption.publicKey).not.toEqual(fresh.current.keys.encryption.publicKey);
    expect((await store.load())?.retired).toEqual([]);
  });
});
