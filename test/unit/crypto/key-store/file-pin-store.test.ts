/**
 * FileKeyStore.pinStore(): pins in `pins.json` beside the keys survive a new
 * instance, the file is 0600 and replaced atomically (no temporary left), it
 * never holds a private key, a malformed file is KEY_STORE_CORRUPT, and
 * wiping the keys (self-heal) keeps the pins of peers.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { isCryptoError } from '../../../../packages/sdk/src/core/errors/index.js';
import { FileKeyStore, generateKeys, KeyRing } from '../../../../packages/sdk/src/crypto/index.js';
import { KeyPins } from '../../../../packages/sdk/src/messaging/key-pins.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function folder(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'pin-store-'));
  dirs.push(d);
  return d;
}
const peer = (k: ReturnType<typeof generateKeys>) => ({
  id: 'peer-1',
  kind: 'user',
  signing: k.signing.publicKey,
  encryption: k.encryption.publicKey,
  retired: [],
});

describe('FileKeyStore.pinStore()', () => {
  it('keeps pins across instances in a 0600 file without secrets, and past a wipe of the keys', async () => {
    const dir = await folder();
    const store = new FileKeyStore({ directory: dir });
    const own = generateKeys();
    await store.save(KeyRing.create(own, Date.now()));
    const k = generateKeys();
    await new KeyPins({ store: store.pinStore() }).check(peer(k));
    const file = join(dir, 'pins.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp'))).toEqual([]);
    const text = await readFile(file, 'utf8');
    expect(text).toContain(toBase64(k.encryption.publicKey));
    for (const secret of [own.encryption.privateKey, own.signing.privateKey])
      expect(text).not.toContain(toBase64(secret));
    await store.wipe();
    const again = new KeyPins({ store: new FileKeyStore({ directory: dir }).pinStore() });
    expect((await again.pinned('peer-1'))?.current.encryption).toBe(toBase64(k.encryption.publicKey));
  });

  it('refuses a malformed pin file with KEY_STORE_CORRUPT', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'pins.json'), '{"version":2,"pins":[]}');
    const err = await new FileKeyStore({ directory: dir })
      .pinStore()
      .get('x')
      .catch((e: unknown) => e);
    expect(isCryptoError(err, 'KEY_STORE_CORRUPT')).toBe(true);
  });
});
