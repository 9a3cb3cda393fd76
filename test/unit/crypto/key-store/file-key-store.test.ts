import { readFileSync } from 'node:fs';
import { mkdtemp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { isCryptoError } from '../../../../packages/sdk/src/core/errors/index.js';
import { LIMITS } from '../../../../packages/sdk/src/core/limits.js';
import type { Logger } from '../../../../packages/sdk/src/core/logger.js';
import {
  FileKeyStore,
  KeyRing,
  encodeKeyRing,
  nodeFileSystem,
  type FileKeyStoreFs,
} from '../../../../packages/sdk/src/crypto/key-store/index.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';

const posix = process.platform !== 'win32';
let root: string;
let dir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ams-keys-'));
  dir = join(root, 'agent', 'keys');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

class Crash extends Error {
  readonly code = 'ECRASH';
}

/**
 * The real fs, with the n-th step (0-based) failing as a crash: that step and
 * every later one throw, as if the process had died there. A crash inside
 * writeNewFile leaves half a temp file behind.
 */
function crashingFs(n: number): FileKeyStoreFs & { steps: string[] } {
  const steps: string[] = [];
  const step = (name: string): void => {
    if (steps.push(name) - 1 >= n && n >= 0) throw new Crash();
  };
  return {
    steps,
    readFile: async (p) => (step('readFile'), nodeFileSystem.readFile(p)),
    readdir: async (p) => (step('readdir'), nodeFileSystem.readdir(p)),
    mkdir: async (p, mode) => (step('mkdir'), nodeFileSystem.mkdir(p, mode)),
    chmod: async (p, mode) => (step('chmod'), nodeFileSystem.chmod(p, mode)),
    async writeNewFile(p, data, mode) {
      try {
        step('writeNewFile');
      } catch (err) {
        await writeFile(p, data.subarray(0, data.length >> 1), { mode });
        throw err;
      }
      return nodeFileSystem.writeNewFile(p, data, mode);
    },
    rename: async (a, b) => (step('rename'), nodeFileSystem.rename(a, b)),
    syncDirectory: async (p) => (step('syncDirectory'), nodeFileSystem.syncDirectory(p)),
    unlink: async (p) => (step('unlink'), nodeFileSystem.unlink(p)),
  };
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('FileKeyStore', () => {
  it('creates the directory 0700 and the key file 0600, and round-trips the ring', async () => {
    const store = new FileKeyStore({ directory: dir });
    expect(await store.load()).toBeUndefined();
    const keys = generateKeys();
    await store.save(KeyRing.create(keys, 1234));
    if (posix) {
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    }
    const back = await new FileKeyStore({ directory: dir }).load();
    expect(back?.current.keys.signing.privateKey).toEqual(keys.signing.privateKey);
    expect(back?.current.createdAt).toBe(1234);
    expect((await readdir(dir)).sort()).toEqual(['keys.json', 'keys.json.prev']);
    if (posix) expect((await stat(store.previousFile)).mode & 0o777).toBe(0o600);
  });

  it('a crash at any step of a save leaves the old or the new ring, never a torn file', async () => {
    const oldKeys = generateKeys();
    const newKeys = generateKeys();
    const oldRing = KeyRing.create(oldKeys, 1);
    const newRing = oldRing.rotate(newKeys, 2);
    await new FileKeyStore({ directory: dir }).save(oldRing);
    const probe = crashingFs(-1);
    await new FileKeyStore({ directory: dir, fs: probe }).save(newRing);
    expect(probe.steps).toEqual([
      'mkdir',
      'readdir',
      'readFile', // the generation being replaced…
      'writeNewFile', // …goes to keys.json.prev
      'rename',
      'syncDirectory',
      'writeNewFile', // then the new ring to keys.json
      'rename',
      'syncDirectory',
    ]);
    const seen = new Set<string>();
    for (let n = 0; n < probe.steps.length; n++) {
      await new FileKeyStore({ directory: dir }).save(oldRing); // also clears temps of the last crash
      const err = await errorOf(new FileKeyStore({ directory: dir, fs: crashingFs(n) }).save(newRing));
      expect(isCryptoError(err, 'KEY_STORE_IO')).toBe(true);
      // The key file is complete, and a fresh store (next process) opens the old or the new ring.
      expect(() => JSON.parse(readFileSync(join(dir, 'keys.json'), 'utf8'))).not.toThrow();
      expect(() => JSON.parse(readFileSync(join(dir, 'keys.json.prev'), 'utf8'))).not.toThrow();
      const after = await new FileKeyStore({ directory: dir }).load();
      const current = toHex(after!.current.keys.encryption.privateKey);
      expect([toHex(oldKeys.encryption.privateKey), toHex(newKeys.encryption.privateKey)]).toContain(current);
      seen.add(current === toHex(newKeys.encryption.privateKey) ? 'new' : 'old');
    }
    expect(seen).toEqual(new Set(['old', 'new'])); // crashes before the rename keep old, after it give new
  });

  it('a crash between write and rename keeps the old content; the stale temp file is ignored then cleaned', async () => {
    const oldKeys = generateKeys();
    await new FileKeyStore({ directory: dir }).save(KeyRing.create(oldKeys, 1));
    const before = await readFile(join(dir, 'keys.json'));
    const fs: FileKeyStoreFs = {
      ...nodeFileSystem,
      unlink: async () => undefined,
      rename: async () => Promise.reject(new Crash()),
    };
    const err = await errorOf(
      new FileKeyStore({ directory: dir, fs }).save(KeyRing.create(generateKeys(), 2)),
    );
    expect(isCryptoError(err, 'KEY_STORE_IO')).toBe(true);
    expect((err as { file?: string }).file).toBe(join(dir, 'keys.json'));
    const names = await readdir(dir);
    expect(names.filter((n) => n.startsWith('keys.json.tmp-'))).toHaveLength(1);
    expect(await readFile(join(dir, 'keys.json'))).toEqual(before);
    // A torn temp file from an earlier crash too.
    await writeFile(join(dir, 'keys.json.tmp-deadbeef'), '{"format": "agent-mess');
    const store = new FileKeyStore({ directory: dir });
    expect((await store.load())?.current.keys.encryption.privateKey).toEqual(oldKeys.encryption.privateKey);
    await store.save(KeyRing.create(generateKeys(), 3));
    expect((await readdir(dir)).sort()).toEqual(['keys.json', 'keys.json.prev']);
  });

  it('a corrupt file is KEY_STORE_CORRUPT naming the file, and is left untouched', async () => {
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'keys.json');
    await writeFile(file, '{"format":"agent-messaging-sdk/key-ring","version":1,"current":');
    const err = await errorOf(new FileKeyStore({ directory: dir }).load());
    expect(isCryptoError(err, 'KEY_STORE_CORRUPT')).toBe(true);
    expect((err as { file?: string }).file).toBe(file);
    expect((err as Error).message).toContain('keys.json');
    expect(await readFile(file, 'utf8')).toContain('"current":');
  });

  it('an unreadable file is KEY_STORE_IO naming the file', async () => {
    await mkdir(join(dir, 'keys.json'), { recursive: true }); // a directory where the file should be: EISDIR
    const err = await errorOf(new FileKeyStore({ directory: dir }).load());
    expect(isCryptoError(err, 'KEY_STORE_IO')).toBe(true);
    expect((err as { file?: string }).file).toBe(join(dir, 'keys.json'));
    const denied: FileKeyStoreFs = {
      ...nodeFileSystem,
      readFile: async () =>
        Promise.reject(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })),
    };
    const err2 = await errorOf(new FileKeyStore({ directory: dir, fs: denied }).load());
    expect(isCryptoError(err2, 'KEY_STORE_IO')).toBe(true);
    expect((err2 as Error).message).toContain('EACCES');
  });

  it('erases expired generations from disk on load', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const old = generateKeys();
    const ring = KeyRing.create(old, clock.now()).rotate(generateKeys(), clock.now());
    const store = new FileKeyStore({ directory: dir, clock });
    await store.save(ring);
    const oldB64 = Buffer.from(old.encryption.privateKey).toString('base64');
    expect(await readFile(store.file, 'utf8')).toContain(oldB64);
    clock.advance(LIMITS.TOKEN_GRACE_MS);
    expect((await store.load())?.retired).toEqual([]);
    expect(await readFile(store.file, 'utf8')).not.toContain(oldB64);
    expect(await readFile(store.previousFile, 'utf8')).not.toContain(oldB64);
  });

  it('wipe removes the key file, the previous generation and stale temps; wiping nothing is fine', async () => {
    const store = new FileKeyStore({ directory: dir, fileName: 'agent.keys' });
    await store.wipe();
    await store.save(KeyRing.create(generateKeys(), 1));
    await writeFile(join(dir, 'agent.keys.tmp-0001'), 'x');
    await writeFile(join(dir, 'unrelated.txt'), 'x');
    await store.wipe();
    expect(await store.load()).toBeUndefined();
    expect(await readdir(dir)).toEqual(['unrelated.txt']);
  });

  it('keeps the generation it replaces in keys.json.prev; with no intact one, a copy of the new ring', async () => {
    const store = new FileKeyStore({ directory: dir });
    const first = KeyRing.create(generateKeys(), 1);
    await store.save(first);
    expect(await readFile(store.previousFile)).toEqual(Buffer.from(encodeKeyRing(first)));
    const second = first.rotate(generateKeys(), 2);
    await store.save(second);
    expect(await readFile(store.previousFile)).toEqual(Buffer.from(encodeKeyRing(first)));
    expect(await readFile(store.file)).toEqual(Buffer.from(encodeKeyRing(second)));
    // A corrupt key file is never copied: the new ring goes to both files.
    await writeFile(store.file, 'garbage');
    const third = second.rotate(generateKeys(), 3);
    await store.save(third);
    expect(await readFile(store.previousFile)).toEqual(Buffer.from(encodeKeyRing(third)));
    expect(await readFile(store.file)).toEqual(Buffer.from(encodeKeyRing(third)));
  });

  it('after a verified load keys.json.prev holds that generation, so a later corruption falls back to it', async () => {
    const store = new FileKeyStore({ directory: dir, clock: new ManualClock(3) }); // inside the grace
    const before = KeyRing.create(generateKeys(), 1);
    const rotated = before.rotate(generateKeys(), 2);
    await store.save(before);
    await store.save(rotated);
    expect(await readFile(store.previousFile)).toEqual(Buffer.from(encodeKeyRing(before)));
    await store.load(); // read back intact: becomes the previous generation too
    expect(await readFile(store.previousFile)).toEqual(Buffer.from(encodeKeyRing(rotated)));
    await writeFile(store.file, '{}');
    const back = await store.load();
    expect(back && encodeKeyRing(back)).toEqual(encodeKeyRing(rotated)); // not the pre-rotation keys
  });

  it('a flipped bit in not_after_ms: falls back to the previous generation, warns, restores the file', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const old = generateKeys();
    const ring = KeyRing.create(old, clock.now()).rotate(generateKeys(), clock.now() + 1000);
    const warnings: [string, unknown][] = [];
    const logger = { ...silentLoggerLike(), warn: (m: string, f?: unknown) => void warnings.push([m, f]) };
    const store = new FileKeyStore({ directory: dir, clock, logger });
    await store.save(ring);
    await store.save(ring); // previous generation = the same ring
    clock.advance(60_000); // well inside the 7-day grace
    // The case: a bit flip that moves the retired key's grace end into the past.
    const text = await readFile(store.file, 'utf8');
    const notAfter = String(ring.retired[0]!.notAfter);
    const flipped = text.replace(`"not_after_ms": ${notAfter}`, `"not_after_ms": ${flipDigit(notAfter)}`);
    expect(flipped).not.toBe(text);
    await writeFile(store.file, flipped);
    const back = await store.load();
    expect(back?.retired.map((g) => toHex(g.encryption.privateKey))).toEqual([
      toHex(old.encryption.privateKey),
    ]);
    expect(back?.retired[0]!.notAfter).toBe(ring.retired[0]!.notAfter);
    expect(warnings).toEqual([
      [
        'key store file is corrupt: loaded the previous generation and restored the file',
        {
          file: store.file,
          previousFile: store.previousFile,
          reason: `Key store ${store.file} is corrupt: checksum mismatch`,
        },
      ],
    ]);
    expect(await readFile(store.file)).toEqual(Buffer.from(encodeKeyRing(ring)));
    expect(await readFile(store.previousFile)).toEqual(Buffer.from(encodeKeyRing(ring)));
    expect(JSON.stringify(warnings)).not.toContain(Buffer.from(old.encryption.privateKey).toString('base64'));
  });

  it('a corrupt key file and a corrupt (or missing) previous generation are KEY_STORE_CORRUPT naming the key file', async () => {
    const store = new FileKeyStore({ directory: dir });
    await store.save(KeyRing.create(generateKeys(), 1));
    const good = await readFile(store.file);
    const corruptCopy = Buffer.from(good);
    const digit = good.indexOf('"created_at_ms": 1') + '"created_at_ms": '.length;
    corruptCopy[digit] = corruptCopy[digit]! ^ 0x01; // '1' → '0': valid JSON, wrong checksum
    await writeFile(store.file, corruptCopy);
    await writeFile(store.previousFile, corruptCopy);
    const err = await errorOf(store.load());
    expect(isCryptoError(err, 'KEY_STORE_CORRUPT')).toBe(true);
    expect((err as { file?: string }).file).toBe(store.file);
    expect((err as Error).message).toBe(
      `Key store ${store.file} is corrupt: checksum mismatch; the previous generation ${store.previousFile} is corrupt too`,
    );
    // Both files left as they were.
    expect(await readFile(store.file)).toEqual(corruptCopy);
    expect(await readFile(store.previousFile)).toEqual(corruptCopy);
    await rm(store.previousFile);
    const err2 = await errorOf(store.load());
    expect(isCryptoError(err2, 'KEY_STORE_CORRUPT')).toBe(true);
    expect((err2 as Error).message).toBe(`Key store ${store.file} is corrupt: checksum mismatch`);
  });

  it('a version 1 file (no checksum) is read whole, rewritten as version 2 with a warning, pruned only later', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const old = generateKeys();
    const ring = KeyRing.create(old, clock.now()).rotate(generateKeys(), clock.now());
    const v2 = JSON.parse(new TextDecoder().decode(encodeKeyRing(ring))) as Record<string, unknown>;
    delete v2['sha256'];
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'keys.json');
    await writeFile(file, `${JSON.stringify({ ...v2, version: 1 }, null, 2)}\n`, { mode: 0o600 });
    const warnings: string[] = [];
    const logger = { ...silentLoggerLike(), warn: (m: string) => void warnings.push(m) };
    const store = new FileKeyStore({ directory: dir, clock, logger });
    clock.advance(LIMITS.TOKEN_GRACE_MS); // the retired pair's (unverified) grace end has passed
    const back = await store.load();
    expect(back?.retired).toHaveLength(1); // not erased on the strength of an unverified time
    expect(warnings).toEqual(['key store file has no checksum (version 1): rewriting it as version 2']);
    expect(await readFile(file)).toEqual(Buffer.from(encodeKeyRing(ring)));
    expect(await readFile(store.previousFile)).toEqual(Buffer.from(encodeKeyRing(ring)));
    // Next load: a verified version 2 file, so the expired generation is erased from both files.
    expect((await store.load())?.retired).toEqual([]);
    const oldB64 = Buffer.from(old.encryption.privateKey).toString('base64');
    expect(await readFile(file, 'utf8')).not.toContain(oldB64);
    expect(await readFile(store.previousFile, 'utf8')).not.toContain(oldB64);
  });

  it('writes exactly the codec bytes', async () => {
    const ring = KeyRing.create(generateKeys(), 9);
    const store = new FileKeyStore({ directory: dir });
    await store.save(ring);
    expect(new Uint8Array(await readFile(store.file))).toEqual(encodeKeyRing(ring));
  });
});

function silentLoggerLike(): Logger {
  return { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
}

/** `digits` with one decimal digit changed, as a one-bit flip of its ASCII code would (e.g. '0' ↔ '1'). */
function flipDigit(digits: string): string {
  const i = digits.length - 4;
  const flipped = String.fromCharCode(digits.charCodeAt(i) ^ 0x01);
  return digits.slice(0, i) + flipped + digits.slice(i + 1);
}

function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
