/**
 * FileKeyPinStore: pins survive a new instance, the file is 0600 and written
 * atomically (no temporary left), a malformed file is KEY_STORE_CORRUPT.
 */
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileKeyPinStore } from '../../../packages/sdk/src/agent/file-key-pins.js';
import { KeyPins } from '../../../packages/sdk/src/messaging/key-pins.js';
import { isCryptoError } from '../../../packages/sdk/src/core/errors/index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function folder(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'pins-'));
  dirs.push(d);
  return d;
}
const keys = (n: number) => ({
  id: 'a1',
  kind: 'agent',
  signing: undefined,
  encryption: new Uint8Array(32).fill(n),
  retired: [],
});

describe('FileKeyPinStore', () => {
  it('keeps pins across instances in a 0600 file, with no temporary file left', async () => {
    const dir = await folder();
    const file = join(dir, 'pins.json');
    await new KeyPins({ store: new FileKeyPinStore(file) }).check(keys(1));
    const changed: string[] = [];
    const again = new KeyPins({
      store: new FileKeyPinStore(file),
      onKeyChanged: (e) => changed.push(e.peerId),
    });
    await again.check(keys(2));
    expect(changed).toEqual(['a1']);
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['pins.json']);
  });

  it('refuses a malformed file with KEY_STORE_CORRUPT', async () => {
    const file = join(await folder(), 'pins.json');
    await writeFile(file, '{"version":2}');
    const err = await new FileKeyPinStore(file).get('a1').catch((e: unknown) => e);
    expect(isCryptoError(err, 'KEY_STORE_CORRUPT')).toBe(true);
  });
});
