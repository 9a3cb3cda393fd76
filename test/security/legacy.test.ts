/**
 * Issue #24, item 10: legacy v1.0 envelopes (no key commitment: one envelope
 * can open to different plaintexts for different recipients; no signed event
 * type) used to be opened by default. Now `open`, the Agent and the UserClient
 * refuse them (`INVALID_ENVELOPE`) unless `acceptLegacyV10: true` is set
 * explicitly, and every SDK sender seals v1.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKeyStore, seal } from '../../packages/sdk/src/crypto/index.js';
import type { DecryptFailure } from '../../packages/sdk/src/agent/index.js';
import type { FailedMessage, ReceivedMessage } from '../../packages/sdk/src/client/index.js';
import { nextEvent } from '../helpers/client-setup.js';
import { agentSocket, registeredKey, userSocket } from './service-keys.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

let world: SecurityWorld;
const keyStore = new MemoryKeyStore();

beforeAll(async () => {
  world = await startSecurityWorld({ agent: { keyStore } });
  world.agent.on('message.new', async (msg) => {
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
  const reply = nextEvent(world.user.client, 'message');
  await world.user.client.send(world.conversationId, { type: 'text', text: 'hello' });
  await reply;
});
afterAll(async () => {
  await world.close();
});

/** A v1.0 envelope sealed by the agent (a peer on an old SDK, or one avoiding the key commitment). */
async function legacyFromAgent(to: { id: string; publicKey: Uint8Array }, text: string) {
  const ring = (await keyStore.load())!;
  const createdAt = new Date().toISOString();
  const wire = seal(
    { type: 'text', text },
    {
      sender: { id: world.agentId, signing: ring.current.keys.signing },
      recipients: [to],
      conversationId: world.conversationId,
      createdAt,
      version: '1.0',
    },
  );
  return {
    type: 'message.new',
    version: 'v1',
    wire_envelope: wire,
    metadata: { conversation_id: world.conversationId, sender_id: world.agentId, created_at: createdAt },
    delivery_id: crypto.randomUUID(),
  };
}

describe('legacy v1.0 envelopes', () => {
  it('the UserClient refuses a v1.0 envelope by default (INVALID_ENVELOPE), nothing is shown', async () => {
    const shown: ReceivedMessage[] = [];
    const onMessage = (m: ReceivedMessage) => void shown.push(m);
    world.user.client.on('message', onMessage);
    const failed = nextEvent<[FailedMessage]>(world.user.client, 'messageFailed');
    const to = { id: world.user.userId, publicKey: registeredKey(world.relay, world.user.userId) };
    userSocket(world.relay).toClient(await legacyFromAgent(to, 'no key commitment here'));
    const [failure] = await failed;
    world.user.client.off('message', onMessage);
    expect(failure.error).toMatchObject({ code: 'INVALID_ENVELOPE' });
    expect(failure.error.message).toContain('legacy v1.0');
    expect(shown).toEqual([]);
  });

  it('the Agent refuses a v1.0 envelope by default (INVALID_ENVELOPE)', async () => {
    const failed = nextEvent<[DecryptFailure]>(world.agent, 'decryptFailure');
    const to = { id: world.agentId, publicKey: registeredKey(world.relay, world.agentId) };
    agentSocket(world.relay).toClient(await legacyFromAgent(to, 'no key commitment here'));
    const [failure] = await failed;
    expect(failure).toMatchObject({ code: 'INVALID_ENVELOPE', eventType: 'message.new' });
  });

  it('every envelope the SDK sent through the relay was v1.1', () => {
    const sealedBySdk = world.relay.seen
      .filter((s) => s.channel === 'http-request' && s.text.includes('wire_envelope'))
      .map((s) => (JSON.parse(s.text) as { wire_envelope?: string }).wire_envelope)
      .filter((w): w is string => w !== undefined);
    expect(sealedBySdk.length).toBeGreaterThan(0);
    for (const wire of sealedBySdk) expect(Buffer.from(wire, 'base64')[5]).toBe(1); // version_minor
  });
});
