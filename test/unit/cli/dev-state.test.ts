import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devStatePath, loadDevState, saveDevState } from '../../../packages/dev/src/cli/dev/state.js';

describe('the ams dev owner state file', () => {
  const who = { baseUrl: 'http://127.0.0.1:8080', email: 'Dev@Example.com' };

  it('is one file per server and owner (case of the email ignored)', () => {
    const a = devStatePath('/k', who.baseUrl, who.email);
    expect(a).toMatch(/^\/k\/dev-owner-[0-9a-f]{16}\.json$/);
    expect(devStatePath('/k', who.baseUrl, 'dev@example.com')).toBe(a);
    expect(devStatePath('/k', 'http://127.0.0.1:9090', who.email)).not.toBe(a);
  });

  it('starts fresh, keeps the device id and password, 0600, no temporary file left', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'ams-state-')), 'keys');
    const path = devStatePath(dir, who.baseUrl, who.email);
    const fresh = await loadDevState(path);
    expect(fresh.fresh).toBe(true);
    await saveDevState(path, who, { deviceId: fresh.deviceId });
    await saveDevState(path, who, { deviceId: fresh.deviceId, protectionPassword: 'p'.repeat(32) });
    expect(await loadDevState(path)).toEqual({
      deviceId: fresh.deviceId,
      protectionPassword: 'p'.repeat(32),
      fresh: false,
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readdir(dir)).toEqual([path.slice(dir.length + 1)]);
  });

  it('refuses a file it did not write instead of overwriting it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ams-state-'));
    const path = devStatePath(dir, who.baseUrl, who.email);
    await writeFile(path, '{"version":2}');
    await expect(loadDevState(path)).rejects.toThrow(
      /is not a state file of this CLI: remove it to start over/,
    );
    expect(await readFile(path, 'utf8')).toBe('{"version":2}');
  });
});
