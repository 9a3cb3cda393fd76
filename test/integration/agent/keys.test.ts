/**
 * The agent's key lifecycle against the reference server (real HTTP,
 * virtual time shared by the server and the agent's key store): first start,
 * second start, a replaced key store, and both kinds of token regeneration.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserClient } from '../../../packages/sdk/src/client/index.js';
import { isCryptoError } from '../../../packages/sdk/src/core/errors/index.js';
import {
  FileKeyStore,
  generateKeys,
  keyFingerprint,
  KeyRing,
  MemoryKeyStore,
} from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { openAsAgent, signUp, startAgent, type TestAgentRuntime } from '../../helpers/client-setup.js';
import { startAgentServer } from '../../helpers/server-agents.js';

const DAY_MS = 24 * 3600_000;
let server: ReferenceServer;
let dir: string;

beforeAll(async () => {
  server = await startAgentServer();
  dir = await mkdtemp(join(tmpdir(), 'ams-keys-'));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** An owner with one agent (keys ensured on a store on the server's virtual clock) in a conversation. */
async function ownerWithAgent(name: string) {
  const { client } = await signUp(server);
  const created = await client.createAgent({ name });
  const store = new MemoryKeyStore({ clock: server.clock });
  const agent = await startAgent(server, created.agentId, created.token, { store, clock: server.clock });
  const { conversationId } = await client.addAgent(created.agentId);
  return { client, created, store, agent, conversationId };
}

async function sendAndRead(
  client: UserClient,
  agent: TestAgentRuntime,
  conversationId: string,
  text: string,
) {
  const sent = await client.send(conversationId, { type: 'text', text });
  const inbox = await agent.api.messages(conversationId);
  return inbox.find((m) => m.message_id === sent.messageId)!.wire_envelope;
}

describe('ensureAgentKeys', () => {
  it('creates and registers on the first start, loads on the second (file store)', async () => {
    const { client } = await signUp(server);
    const created = await client.createAgent({ name: 'First' });
    const directory = join(dir, 'first');
    const first = await startAgent(server, created.agentId, created.token, {
      store: new FileKeyStore({ directory }),
    });
    expect(first.events.map((e) => e.type)).toEqual(['keys.created', 'keys.registered']);
    const self = await first.api.getSelf();
    expect(self.keys?.keyId).toBe(keyFingerprint(first.ring.current.keys.encryption.publicKey));

    const second = await startAgent(server, created.agentId, created.token, {
      store: new FileKeyStore({ directory }),
    });
    expect(second.events).toEqual([]);
    expect(keyFingerprint(second.ring.current.keys.encryption.publicKey)).toBe(self.keys?.keyId);
  });

  it('three first-time copies on one empty shared directory agree on one key set', async () => {
    const { client } = await signUp(server);
    const created = await client.createAgent({ name: 'Copies' });
    const directory = join(dir, 'copies');
    const copies = await Promise.all(
      [1, 2, 3].map(() =>
        startAgent(server, created.agentId, created.token, { store: new FileKeyStore({ directory }) }),
      ),
    );
    const fingerprints = new Set(copies.map((c) => keyFingerprint(c.ring.current.keys.encryption.publicKey)));
    expect(fingerprints.size).toBe(1);
    expect(copies.filter((c) => c.events.some((e) => e.type === 'keys.created'))).toHaveLength(1);
    expect(copies.flatMap((c) => c.events.map((e) => e.type))).not.toContain('keys.mismatch_healed');
    const self = await copies[0]!.api.getSelf();
    expect(self.keys?.keyId).toBe([...fingerprints][0]);
  });

  it('heals a replaced key store when the service accepts new keys (a regeneration is pending)', async () => {
    const { client, created, store, conversationId } = await ownerWithAgent('Heal');
    const old = (await client.agent(created.agentId)).view.keys?.key_id;
    await store.save(KeyRing.create(generateKeys(), server.clock.now())); // someone replaced the store
    const { token } = await client.regenerateAgentToken(created.agentId);
    const healed = await startAgent(server, created.agentId, token, { store, clock: server.clock });

    const fingerprint = keyFingerprint(healed.ring.current.keys.encryption.publicKey);
    expect(healed.events.map((e) => e.type)).toEqual(['keys.registered', 'keys.mismatch_healed']);
    expect(healed.events[1]).toMatchObject({ fingerprint });
    const warn = healed.logger.lines.find((l) => l.level === 'warn');
    expect(warn?.message).toContain('AGENT_KEYS_MISMATCH');
    expect((await client.agent(created.agentId)).view.keys?.key_id).toBe(fingerprint);
    expect(fingerprint).not.toBe(old);

    const wire = await sendAndRead(client, healed, conversationId, 'to the new key');
    expect((await openAsAgent(healed, wire, server.clock.now())).payload['text']).toBe('to the new key');
    expect(healed.logger.text()).not.toContain(token);
  });

  it('heals a replaced store with the current token alone: wipe, regenerate, re-register (replace)', async () => {
    const { client, created, store, conversationId } = await ownerWithAgent('Self-heal');
    const old = (await client.agent(created.agentId)).view.keys?.key_id;
    await store.save(KeyRing.create(generateKeys(), server.clock.now()));
    const healed = await startAgent(server, created.agentId, created.token, { store, clock: server.clock });

    const fingerprint = keyFingerprint(healed.ring.current.keys.encryption.publicKey);
    expect(healed.events.map((e) => e.type)).toEqual(['keys.registered', 'keys.mismatch_healed']);
    expect((await client.agent(created.agentId)).view.keys?.key_id).toBe(fingerprint);
    expect(fingerprint).not.toBe(old);
    const wire = await sendAndRead(client, healed, conversationId, 'after the self-heal');
    expect((await openAsAgent(healed, wire, server.clock.now())).payload['text']).toBe('after the self-heal');
  });

  it('after a normal regeneration both keys open during the grace, the old one is erased after 7 days', async () => {
    const { client, created, store, agent, conversationId } = await ownerWithAgent('Normal');
    const { token } = await client.regenerateAgentToken(created.agentId);
    const before = await sendAndRead(client, agent, conversationId, 'to the old key');

    const rotated = await startAgent(server, created.agentId, token, { store, clock: server.clock });
    expect(rotated.events.map((e) => e.type)).toEqual(['keys.rotated', 'keys.registered']);
    expect(rotated.events[0]?.graceMs).toBe(7 * DAY_MS);
    expect(rotated.events[0]?.previousFingerprint).toBe(
      keyFingerprint(agent.ring.current.keys.encryption.publicKey),
    );
    const after = await sendAndRead(client, rotated, conversationId, 'to the new key');

    const now = server.clock.now();
    expect((await openAsAgent(rotated, before, now)).payload['text']).toBe('to the old key');
    expect((await openAsAgent(rotated, after, now)).payload['text']).toBe('to the new key');

    server.advanceTime(7 * DAY_MS);
    const reloaded = (await store.load())!;
    expect(reloaded.retired).toEqual([]);
    rotated.ring = reloaded;
    const err = await openAsAgent(rotated, before, server.clock.now()).catch((e: unknown) => e);
    expect(isCryptoError(err, 'DECRYPT_FAILURE')).toBe(true);
    expect((await openAsAgent(rotated, after, server.clock.now())).payload['text']).toBe('to the new key');
  });

  it('after an emergency regeneration the old key is invalid at once', async () => {
    const { client, created, store, agent, conversationId } = await ownerWithAgent('Emergency');
    const before = await sendAndRead(client, agent, conversationId, 'before the emergency');
    const { token } = await client.regenerateAgentToken(created.agentId, { emergency: true });
    expect((await client.agent(created.agentId)).view.keys).toBeNull();

    const rotated = await startAgent(server, created.agentId, token, { store, clock: server.clock });
    expect(rotated.events[0]).toMatchObject({ type: 'keys.rotated', graceMs: 0 });
    expect(rotated.ring.retired).toEqual([]);
    expect((await store.load())!.retired).toEqual([]);
    const err = await openAsAgent(rotated, before, server.clock.now()).catch((e: unknown) => e);
    expect(isCryptoError(err, 'DECRYPT_FAILURE')).toBe(true);

    const after = await sendAndRead(client, rotated, conversationId, 'after the emergency');
    expect((await openAsAgent(rotated, after, server.clock.now())).payload['text']).toBe(
      'after the emergency',
    );
  });
});
