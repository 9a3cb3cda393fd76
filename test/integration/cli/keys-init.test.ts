/**
 * `ams keys init` against the reference server: creates and registers an
 * agent's keys without a dispatcher (three runs at once on one shared
 * directory agree on one key set), writes the ring as a 0600 secret file,
 * and copies that share no disk load it through `SecretKeyStore`.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCryptoError } from '../../../packages/sdk/src/core/errors/index.js';
import {
  KeyRing,
  SecretKeyStore,
  generateKeys,
  loadOrCreateKeys,
} from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import { call, uniqueEmail } from '../../helpers/server-http.js';
import { startAgentServer } from '../../helpers/server-agents.js';
import { captureIo } from '../../unit/cli/helpers.js';

interface InitView {
  created: boolean;
  registered: boolean;
  key_id: string;
  secret_file?: string;
}

describe('ams keys init', () => {
  let server: ReferenceServer;
  let root: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startAgentServer();
    root = await mkdtemp(join(tmpdir(), 'ams-keys-init-'));
    const userId = await server.control.createUser({
      email: uniqueEmail('owner'),
      password: 'owner-password',
    });
    const agent = await server.control.createAgent({ ownerId: userId });
    env = {
      AMS_BASE_URL: server.url,
      AMS_AGENT_ID: agent.agentId,
      AMS_AGENT_TOKEN: agent.token,
      AMS_KEY_DIR: root,
    };
  });
  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('three pipeline runs at once: one creates, all agree, the service holds that key', async () => {
    const ios = [0, 1, 2].map(() => captureIo({ env }));
    const codes = await Promise.all(ios.map((io) => runCli(['keys', 'init', '--json'], io)));
    expect(codes).toEqual([0, 0, 0]);
    const views = ios.map((io) => JSON.parse(io.out) as InitView);
    expect(views.filter((v) => v.created)).toHaveLength(1);
    expect(new Set(views.map((v) => v.key_id)).size).toBe(1);
    const self = await call(server, 'GET', `/agents/${env['AMS_AGENT_ID']}`, {
      token: env['AMS_AGENT_TOKEN']!,
    });
    expect(self.text).toContain(views[0]!.key_id);
    for (const io of ios) expect(io.out + io.err).not.toMatch(/private/i);
  });

  it('--secret-file writes the ring (0600, base64); SecretKeyStore loads the same keys and refuses writes', async () => {
    const file = join(root, 'agent-keys.secret');
    const io = captureIo({ env });
    expect(await runCli(['keys', 'init', '--secret-file', file, '--json'], io)).toBe(0);
    const view = JSON.parse(io.out) as InitView;
    expect(view.created).toBe(false);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const secret = await readFile(file, 'utf8');
    expect(io.out).not.toContain(secret.trim());

    const store = new SecretKeyStore({ secret, name: 'AMS_AGENT_KEYS' });
    const { ring, created } = await loadOrCreateKeys(store);
    expect(created).toBe(false);
    const again = captureIo({ env: { ...env, AMS_AGENT_KEYS: secret } });
    expect(await runCli(['keys', 'init', '--from-secret', 'AMS_AGENT_KEYS', '--json'], again)).toBe(0);
    expect((JSON.parse(again.out) as InitView).key_id).toBe(view.key_id);
    expect(ring.current.keys.encryption.publicKey).toBeDefined();

    let caught: unknown;
    try {
      await store.save(KeyRing.create(generateKeys(), Date.now()));
    } catch (err) {
      caught = err;
    }
    expect(isCryptoError(caught, 'KEY_STORE_IO')).toBe(true);
    expect(String((caught as Error).message)).not.toContain(secret.trim());
  });

  it('an empty secret is refused with KEY_STORE_IO instead of making keys no one else has', async () => {
    const io = captureIo({ env: { ...env, AMS_AGENT_KEYS: '' } });
    expect(await runCli(['keys', 'init', '--from-secret', 'AMS_AGENT_KEYS'], io)).toBe(1);
    expect(io.err).toMatch(/read-only/);
  });
});
