import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileKeyStore, keyFingerprint } from '../../../../packages/sdk/src/crypto/index.js';
import { resolveAgentOptions } from '../../../../packages/sdk/src/agent/options.js';
import { runCli } from '../../../../packages/dev/src/cli/run.js';
import { captureIo } from '../helpers.js';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'ams-keygen-')), 'keys');

describe('ams keygen', () => {
  it('creates a private key store and prints only public keys and fingerprints', async () => {
    const dir = fresh();
    const io = captureIo();
    expect(await runCli(['keygen', '--dir', dir], io)).toBe(0);
    const ring = (await new FileKeyStore({ directory: dir }).load())!;
    const keys = ring.current.keys;
    expect(io.out).toContain(`Created key store ${join(dir, 'keys.json')}`);
    expect(io.out).toContain(`key_id ${keyFingerprint(keys.encryption.publicKey)}`);
    expect(io.out).toContain(`key_id ${keyFingerprint(keys.signing.publicKey)}`);
    expect(io.out).toContain(Buffer.from(keys.signing.publicKey).toString('base64'));
    for (const priv of [keys.encryption.privateKey, keys.signing.privateKey]) {
      expect(io.out).not.toContain(Buffer.from(priv).toString('base64'));
      expect(io.out).not.toContain(Buffer.from(priv).toString('hex'));
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'keys.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses to overwrite without --force (exit 1), replaces with it', async () => {
    const dir = fresh();
    const first = captureIo();
    expect(await runCli(['keygen', '--dir', dir, '--json'], first)).toBe(0);
    const created = JSON.parse(first.out) as { key_id: string; replaced: boolean };
    expect(created.replaced).toBe(false);
    const before = readFileSync(join(dir, 'keys.json'));

    const again = captureIo();
    expect(await runCli(['keygen', '--dir', dir], again)).toBe(1);
    expect(again.err).toContain(`already exists (key_id ${created.key_id}); pass --force to replace it`);
    expect(readFileSync(join(dir, 'keys.json'))).toEqual(before);

    const forced = captureIo();
    expect(await runCli(['keygen', '--dir', dir, '--force', '--json'], forced)).toBe(0);
    const replaced = JSON.parse(forced.out) as { key_id: string; replaced: boolean };
    expect(replaced.replaced).toBe(true);
    expect(replaced.key_id).not.toBe(created.key_id);
    expect(forced.err).toMatch(/warning: replaced the previous keys/);
  });

  it('restores a corrupt key file from the previous generation and reports the store as existing', async () => {
    const dir = fresh();
    const first = captureIo();
    expect(await runCli(['keygen', '--dir', dir, '--json'], first)).toBe(0);
    const created = JSON.parse(first.out) as { key_id: string };
    const good = readFileSync(join(dir, 'keys.json'));
    writeFileSync(join(dir, 'keys.json'), '{ not json');
    const io = captureIo();
    expect(await runCli(['keygen', '--dir', dir], io)).toBe(1);
    expect(io.err).toBe(
      `ams keygen: warning: key store file is corrupt: loaded the previous generation and restored the file\n` +
        `ams keygen: key store ${join(dir, 'keys.json')} already exists (key_id ${created.key_id}); pass --force to replace it.\n`,
    );
    expect(readFileSync(join(dir, 'keys.json'))).toEqual(good);
  });

  it('treats an unreadable store (key file and previous generation corrupt) as existing', async () => {
    const dir = fresh();
    expect(await runCli(['keygen', '--dir', dir], captureIo())).toBe(0);
    writeFileSync(join(dir, 'keys.json'), '{ not json');
    writeFileSync(join(dir, 'keys.json.prev'), '{ not json');
    const io = captureIo();
    expect(await runCli(['keygen', '--dir', dir], io)).toBe(1);
    expect(io.err).toContain('exists but cannot be read (KEY_STORE_CORRUPT)');
    expect(await runCli(['keygen', '--dir', dir, '--force'], captureIo())).toBe(0);
  });

  it('puts the store in $AMS_KEY_DIR/<agent id> and exits 1 when it cannot be written', async () => {
    const root = fresh();
    expect(await runCli(['keygen'], captureIo({ env: { AMS_KEY_DIR: root, AMS_AGENT_ID: 'ag_1' } }))).toBe(0);
    expect(statSync(join(root, 'ag_1', 'keys.json')).isFile()).toBe(true);
    expect(await runCli(['keygen', '--agent', 'ag_2'], captureIo({ env: { AMS_KEY_DIR: root } }))).toBe(0);
    expect(statSync(join(root, 'ag_2', 'keys.json')).isFile()).toBe(true);
    expect(existsSync(join(root, 'keys.json'))).toBe(false);
    const blocker = join(mkdtempSync(join(tmpdir(), 'ams-keygen-')), 'file');
    writeFileSync(blocker, 'x');
    const io = captureIo();
    expect(await runCli(['keygen', '--dir', join(blocker, 'sub')], io)).toBe(1);
    expect(io.err).toMatch(/KEY_STORE_IO/);
  });

  it('writes the key the Agent loads: its default key store is $AMS_KEY_DIR/<agent id>', async () => {
    const root = fresh();
    const io = captureIo({ env: { AMS_KEY_DIR: root, AMS_AGENT_ID: 'ag_keys' } });
    expect(await runCli(['keygen', '--json'], io)).toBe(0);
    const made = JSON.parse(io.out) as { file: string; key_id: string };
    const saved = process.env['AMS_KEY_DIR'];
    process.env['AMS_KEY_DIR'] = root;
    try {
      const options = resolveAgentOptions({
        baseUrl: 'http://127.0.0.1:1',
        agentId: 'ag_keys',
        token: `hsk_${'a'.repeat(40)}`,
      });
      const store = options.keyStore as FileKeyStore;
      expect(store.file).toBe(made.file);
      const ring = (await store.load())!;
      expect(keyFingerprint(ring.current.keys.encryption.publicKey)).toBe(made.key_id);
    } finally {
      if (saved === undefined) delete process.env['AMS_KEY_DIR'];
      else process.env['AMS_KEY_DIR'] = saved;
    }
  });

  it('asks which agent when neither --dir nor an agent id is given (exit 2)', async () => {
    const io = captureIo({ env: { AMS_KEY_DIR: fresh() } });
    expect(await runCli(['keygen'], io)).toBe(2);
    expect(io.err).toContain('pass --agent ID or set AMS_AGENT_ID');
  });
});
