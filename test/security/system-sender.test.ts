/**
 * Issue #24, item 9: the service speaks as `system`. It holds the system
 * sender's key, so it can seal anything as `system`; the clients accept
 * `system` only for the event types the service truly originates. Messages,
 * streams and reactions are peer-only, and an `artifact_response` from
 * `system` is only a service denial (`user_timeout`, …), never an approval or
 * an answer in a human's name: each one the relay injects sealed by `system`
 * is refused with reason `event_type`, and nothing is shown. (The service's
 * genuine denials still arrive: test/integration/agent/artifacts.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentKeys } from '../../packages/sdk/src/crypto/index.js';
import { toBase64 } from '../../packages/sdk/src/core/encoding.js';
import type { DecryptFailure } from '../../packages/sdk/src/agent/index.js';
import type { FailedMessage, StreamFailure } from '../../packages/sdk/src/client/index.js';
import { nextEvent } from '../helpers/client-setup.js';
import { agentSocket, registeredKey, sealAsSystem, serveOwnSystemKeys, userSocket } from './service-keys.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

let world: SecurityWorld;
let system: AgentKeys;
const shown: string[] = [];

beforeAll(async () => {
  world = await startSecurityWorld();
  system = serveOwnSystemKeys(world.relay);
  world.agent.on('message.new', async (msg) => {
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
  world.agent.on('artifact_response', () => void shown.push('agent:artifact_response'));
  world.agent.on('reaction.update', () => void shown.push('agent:reaction.update'));
  world.user.client.on('reaction', () => void shown.push('user:reaction'));
  world.user.client.on('streamStart', () => void shown.push('user:streamStart'));
  world.user.client.on('message', (m) => {
    if (m.senderId === 'system') shown.push(`user:message:${m.event}`);
  });
  // One real exchange, so both sides' keys crossed the relay.
  const reply = nextEvent(world.user.client, 'message');
  await world.user.client.send(world.conversationId, { type: 'text', text: 'hello' });
  await reply;
});
afterAll(async () => {
  await world.close();
});

function userKey() {
  return { id: world.user.userId, publicKey: registeredKey(world.relay, world.user.userId) };
}

describe('the service sealing peer-only events as system', () => {
  it('a reaction sealed by system is refused by the UserClient (event_type), no reaction shown', async () => {
    const sealed = sealAsSystem(
      system,
      'reaction.update',
      { type: 'reaction', message_id: crypto.randomUUID(), emoji: '👍', action: 'add' },
      userKey(),
      world.conversationId,
    );
    const failed = nextEvent<[FailedMessage]>(world.user.client, 'messageFailed');
    userSocket(world.relay).toClient({
      type: 'reaction.update',
      version: 'v1',
      wire_envelope: sealed.wire,
      metadata: { conversation_id: world.conversationId, sender_id: 'system', created_at: sealed.createdAt },
      delivery_id: crypto.randomUUID(),
    });
    const [failure] = await failed;
    expect(failure.error).toMatchObject({ code: 'DECRYPT_FAILURE', reason: 'event_type' });
    expect(shown).toEqual([]);
  });

  it('a stream started by system is refused by the UserClient (invalid_start, event_type), nothing shown', async () => {
    const streamId = crypto.randomUUID();
    const sealed = sealAsSystem(
      system,
      'stream.start',
      { type: 'stream.open', v: 1, stream_id: streamId, key: toBase64(new Uint8Array(32).fill(7)) },
      userKey(),
      world.conversationId,
      streamId,
    );
    const failed = nextEvent<[StreamFailure]>(world.user.client, 'streamError');
    userSocket(world.relay).toClient({
      type: 'stream.start',
      stream_id: streamId,
      conversation_id: world.conversationId,
      sender_id: 'system',
      wire_envelope: sealed.wire,
    });
    const [failure] = await failed;
    expect(failure.reason).toBe('invalid_start');
    expect(failure.error).toMatchObject({ code: 'DECRYPT_FAILURE', reason: 'event_type' });
    expect(shown).toEqual([]);
  });

  it("an approval, a denial in the human's name and a reaction sealed by system are refused by the Agent (event_type)", async () => {
    for (const [type, payload] of [
      ['artifact_response', { artifact_id: crypto.randomUUID(), revision: 1, status: 'approved' }],
      [
        'artifact_response',
        { artifact_id: crypto.randomUUID(), revision: 1, status: 'denied', reason: 'user_rejected' },
      ],
      ['reaction.update', { type: 'reaction', message_id: crypto.randomUUID(), emoji: '👍', action: 'add' }],
    ] as const) {
      const failed = nextEvent<[DecryptFailure]>(world.agent, 'decryptFailure');
      const agentKey = { id: world.agentId, publicKey: registeredKey(world.relay, world.agentId) };
      const sealed = sealAsSystem(system, type, payload, agentKey, world.conversationId);
      agentSocket(world.relay).toClient({
        type,
        version: 'v1',
        wire_envelope: sealed.wire,
        metadata: {
          conversation_id: world.conversationId,
          sender_id: 'system',
          created_at: sealed.createdAt,
        },
        delivery_id: crypto.randomUUID(),
      });
      const [failure] = await failed;
      expect(failure).toMatchObject({ eventType: type, code: 'DECRYPT_FAILURE', reason: 'event_type' });
    }
    expect(shown).toEqual([]);
  });

  it('message.new sealed by system stays refused (the rule before #24)', async () => {
    const sealed = sealAsSystem(
      system,
      'message.new',
      { type: 'text', text: 'I am system' },
      userKey(),
      world.conversationId,
    );
    const failed = nextEvent<[FailedMessage]>(world.user.client, 'messageFailed');
    userSocket(world.relay).toClient({
      type: 'message.new',
      version: 'v1',
      wire_envelope: sealed.wire,
      metadata: { conversation_id: world.conversationId, sender_id: 'system', created_at: sealed.createdAt },
      delivery_id: crypto.randomUUID(),
    });
    const [failure] = await failed;
    expect(failure.error).toMatchObject({ code: 'DECRYPT_FAILURE', reason: 'event_type' });
    expect(shown).toEqual([]);
  });
});
