/**
 * Issue #24, item 8: forward spoofing. The `original` of a forwarded message
 * used to be the forwarder's word: any member could "forward" a message
 * nobody sent, and it showed as the claimed sender's. Now a copy made by the
 * SDK carries a proof (the original v1.1 envelope and its content key), the
 * receiver verifies it against the original sender's key, and the typed
 * `forwarded` attribution says which it is: `verified: true` with the signed
 * sender, ids and payload, or `verified: false` with the reason, every field
 * then being the forwarder's claim.
 *
 * The hostile member here is the agent (a real second principal of the
 * conversation, with its own keys), forging towards the user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64 } from '../../packages/sdk/src/core/encoding.js';
import { MemoryKeyStore, discloseContentKey } from '../../packages/sdk/src/crypto/index.js';
import type { IncomingMessage } from '../../packages/sdk/src/agent/index.js';
import type { ReceivedMessage } from '../../packages/sdk/src/client/index.js';
import { nextEvent } from '../helpers/client-setup.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

let world: SecurityWorld;
const keyStore = new MemoryKeyStore();
const atAgent: IncomingMessage[] = [];

beforeAll(async () => {
  world = await startSecurityWorld({ agent: { keyStore } });
  world.agent.on('message.new', async (msg) => {
    atAgent.push(msg);
    if (msg.payload.type === 'text') await msg.reply(`echo: ${msg.text ?? ''}`);
  });
});
afterAll(async () => {
  await world.close();
});

/** The next message the user receives whose payload is `forwarded`. */
function nextForwardAtUser(): Promise<ReceivedMessage> {
  return new Promise((resolve) => {
    const on = (m: ReceivedMessage) => {
      if (m.payload['type'] !== 'forwarded') return;
      world.user.client.off('message', on);
      resolve(m);
    };
    world.user.client.on('message', on);
  });
}

/** A real exchange: the user's message as the agent saw it, and the agent's reply as the user saw it. */
async function exchange(text: string): Promise<{ atAgent: IncomingMessage; atUser: ReceivedMessage }> {
  const reply = nextEvent<[ReceivedMessage]>(world.user.client, 'message');
  const sent = await world.user.client.send(world.conversationId, { type: 'text', text });
  const [atUser] = await reply;
  const received = atAgent.find((m) => m.messageId === sent.messageId);
  if (received === undefined) throw new Error('the agent did not get the message');
  return { atAgent: received, atUser };
}

async function agentKeys() {
  const ring = await keyStore.load();
  return ring!.candidates(Date.now());
}

describe('forwarding through the relay', () => {
  it('a genuine forward is verified against the original sender: user → agent and agent → user', async () => {
    const { atAgent: userMessage, atUser: agentReply } = await exchange('the meeting is at 3');

    // The user forwards the agent's reply back into the conversation: the agent verifies its own words.
    const forwardAtAgent = new Promise<IncomingMessage>((resolve) => {
      world.agent.on('message.new', (m) => {
        if (m.payload.type === 'forwarded') resolve(m);
      });
    });
    await world.user.client.forward(agentReply, [world.conversationId]);
    const atAgentCopy = await forwardAtAgent;
    expect(atAgentCopy.forwarded).toMatchObject({
      verified: true,
      reason: undefined,
      forwardedBy: world.user.userId,
      senderId: world.agentId,
      messageId: agentReply.messageId,
      payload: { type: 'text', text: 'echo: the meeting is at 3' },
    });

    // The agent forwards the user's message: the user verifies it against its own key.
    const atUser = nextForwardAtUser();
    await world.agent.forward(userMessage, [world.conversationId]);
    const copy = await atUser;
    expect(copy.forwarded).toMatchObject({
      verified: true,
      forwardedBy: world.agentId,
      senderId: world.user.userId,
      messageId: userMessage.messageId,
      createdAt: userMessage.createdAt,
      payload: { type: 'text', text: 'the meeting is at 3' },
    });
  });

  it("a forged forward without proof is marked as the forwarder's unverified claim (no_proof)", async () => {
    const atUser = nextForwardAtUser();
    await world.agent.send(world.conversationId, {
      type: 'forwarded',
      original: {
        conversation_id: world.conversationId,
        message_id: crypto.randomUUID(),
        sender_id: world.user.userId,
        created_at: new Date().toISOString(),
      },
      payload: { type: 'text', text: 'I approve the transfer of 10 000 EUR' },
    });
    const copy = await atUser;
    expect(copy.senderId).toBe(world.agentId);
    expect(copy.forwarded).toMatchObject({
      verified: false,
      reason: 'no_proof',
      forwardedBy: world.agentId,
      senderId: world.user.userId, // only claimed
    });
  });

  it('a real proof under another payload is refused as a mismatch; a wrong content key as invalid_proof', async () => {
    const { atAgent: genuine } = await exchange('lunch?');
    const wire = genuineWire(genuine);
    expect(wire).toBeDefined();
    const key = await discloseContentKey(wire!, { recipientId: world.agentId, keys: await agentKeys() });
    const original = {
      conversation_id: genuine.conversationId,
      message_id: genuine.messageId,
      sender_id: genuine.senderId,
      created_at: genuine.createdAt,
    };

    const swapped = nextForwardAtUser();
    await world.agent.send(world.conversationId, {
      type: 'forwarded',
      original,
      payload: { type: 'text', text: 'yes, and I approve the transfer' },
      proof: { wire_envelope: wire!, content_key: toBase64(key) },
    });
    expect((await swapped).forwarded).toMatchObject({ verified: false, reason: 'mismatch' });

    const wrongKey = nextForwardAtUser();
    await world.agent.send(world.conversationId, {
      type: 'forwarded',
      original,
      payload: { type: 'text', text: 'lunch?' },
      proof: { wire_envelope: wire!, content_key: toBase64(new Uint8Array(32).fill(1)) },
    });
    expect((await wrongKey).forwarded).toMatchObject({ verified: false, reason: 'invalid_proof' });
  });
});

/** The wire envelope of a message the agent received, as the relay carried it (its header holds the message id). */
function genuineWire(m: IncomingMessage): string | undefined {
  for (const s of world.relay.seen) {
    if (s.channel !== 'ws-down') continue;
    const frame = JSON.parse(s.text) as { type?: string; wire_envelope?: string };
    const wire = frame.wire_envelope;
    if (frame.type === 'message.new' && wire !== undefined) {
      if (Buffer.from(wire, 'base64').includes(Buffer.from(m.messageId, 'utf8'))) return wire;
    }
  }
  return undefined;
}
