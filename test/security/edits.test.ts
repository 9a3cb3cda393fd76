/**
 * Edits, deletes and receipts (#26) against a hostile service. They travel
 * as sealed, signed message payloads, and a receiver accepts an edit or
 * delete only from the signed sender of the message it changes:
 * - the relay never sees the new text, the target id or the action kind;
 * - an edit sealed in the agent's name with another key is refused
 *   (`DECRYPT_FAILURE`, reason `signature`), nothing shown;
 * - the human (another member) editing or deleting the agent's message, with
 *   the frame relabelled as the agent's, is refused by the agent;
 * - a genuine edit replayed into another conversation is refused (the
 *   conversation is signed), replayed into the same one is a duplicate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FailedMessage, ReceivedMessage } from '../../packages/sdk/src/client/index.js';
import type { IncomingMessage } from '../../packages/sdk/src/agent/events.js';
import type { MessageDeleted, MessageEdited } from '../../packages/sdk/src/messaging/message-actions.js';
import { seal, generateKeys } from '../../packages/sdk/src/crypto/index.js';
import { nextEvent } from '../helpers/client-setup.js';
import { registeredKey, userSocket } from './service-keys.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';
import { createTestWorld, type WorldUser } from '../../packages/dev/src/testing/index.js';

type Frame = Record<string, unknown>;
const isFrame = (f: unknown, type: string): f is Frame =>
  typeof f === 'object' && f !== null && (f as Frame)['type'] === type;

let world: SecurityWorld;
const userEdits: (MessageEdited | MessageDeleted)[] = [];
const agentEdits: (MessageEdited | MessageDeleted)[] = [];
const agentMessages: IncomingMessage[] = [];

beforeAll(async () => {
  world = await startSecurityWorld({ agent: { status: false } });
  world.user.client.on('messageEdited', (e) => void userEdits.push(e));
  world.user.client.on('messageDeleted', (e) => void userEdits.push(e));
  world.agent.on('messageEdited', (e) => void agentEdits.push(e));
  world.agent.on('messageDeleted', (e) => void agentEdits.push(e));
  world.agent.on('message.new', (msg) => void agentMessages.push(msg));
  // One real exchange, so both sides' keys crossed the relay.
  await userSays('hello');
  await agentSays('hello back');
});
afterAll(async () => {
  await world.close();
});

/** The agent sends a message; resolves once the user's client handled every frame before it. */
async function agentSays(text: string): Promise<ReceivedMessage> {
  const got = new Promise<ReceivedMessage>((resolve) => {
    const on = (m: ReceivedMessage) => {
      if ((m.payload as { text?: unknown }).text !== text) return;
      world.user.client.off('message', on);
      resolve(m);
    };
    world.user.client.on('message', on);
  });
  world.server.advanceTime(1_001);
  await world.agent.send(world.conversationId, text);
  return got;
}

/** The user sends a message; resolves once the agent handled every event before it. */
async function userSays(text: string): Promise<IncomingMessage> {
  world.server.advanceTime(1_001);
  const sent = await world.user.client.send(world.conversationId, { type: 'text', text });
  for (;;) {
    const m = agentMessages.find((x) => x.messageId === sent.messageId);
    if (m !== undefined) return m;
    await nextEvent(world.agent, 'message.new');
  }
}

describe('edits and deletes through a hostile service', () => {
  let captured: Frame | undefined;

  it('the relay never sees the new text, the target or the kind; the human gets a verified edit', async () => {
    const original = await agentSays('draft');
    const secret = `secret-${crypto.randomUUID()}`;
    world.relay.onServerFrame = (frame) => {
      if (isFrame(frame, 'message.new')) captured = frame;
      return frame;
    };
    const edited = nextEvent<[MessageEdited]>(world.user.client, 'messageEdited');
    world.server.advanceTime(1_001);
    await world.agent.edit(world.conversationId, original.messageId, secret);
    const [e] = await edited;
    world.relay.onServerFrame = undefined;
    expect(e).toMatchObject({
      targetId: original.messageId,
      text: secret,
      senderId: world.agentId,
      verified: true,
    });
    // The target id is the original's message id, public in its own frame: only the edit's frames are checked.
    const editFrames = world.relay.seen.filter((s) => s.text.includes(e.messageId));
    expect(editFrames.length).toBeGreaterThan(0);
    expect(editFrames.filter((s) => s.text.includes(original.messageId))).toEqual([]);
    expect(
      world.relay.seen.filter((s) => s.text.includes(secret) || s.text.includes('message.edit')),
    ).toEqual([]);
    expect(captured).toBeDefined();
  });

  it("an edit sealed in the agent's name with another key is refused (signature), nothing shown", async () => {
    const target = await agentSays('pay 10 EUR');
    const before = userEdits.length;
    const mallory = generateKeys();
    const createdAt = new Date(world.server.control.now()).toISOString();
    const wire = seal(
      { type: 'message.edit', target_id: target.messageId, payload: { type: 'text', text: 'pay 1000 EUR' } },
      {
        sender: { id: world.agentId, signing: mallory.signing },
        recipients: [{ id: world.user.userId, publicKey: registeredKey(world.relay, world.user.userId) }],
        conversationId: world.conversationId,
        messageId: crypto.randomUUID(),
        createdAt,
      },
    );
    const failed = nextEvent<[FailedMessage]>(world.user.client, 'messageFailed');
    userSocket(world.relay).toClient({
      type: 'message.new',
      version: 'v1',
      wire_envelope: wire,
      metadata: { conversation_id: world.conversationId, sender_id: world.agentId, created_at: createdAt },
      delivery_id: crypto.randomUUID(),
    });
    const [failure] = await failed;
    expect(failure.error).toMatchObject({ code: 'DECRYPT_FAILURE', reason: 'signature' });
    await agentSays('after the forgery');
    expect(userEdits.slice(before)).toEqual([]);
  });

  it("another member (the human) cannot edit or delete the agent's message, even relabelled as the agent's", async () => {
    const target = await agentSays('the answer is 4');
    const before = agentEdits.length;
    // As sent (the signed sender is the human, not the target's sender) …
    world.server.advanceTime(1_001);
    await world.user.client.edit(world.conversationId, target.messageId, {
      type: 'text',
      text: 'the answer is 5',
    });
    world.server.advanceTime(1_001);
    await world.user.client.delete(world.conversationId, target.messageId);
    // … and relabelled as the agent's by the relay.
    world.relay.onServerFrame = (frame) => {
      if (!isFrame(frame, 'message.new')) return frame;
      const metadata = frame['metadata'] as Frame | undefined;
      return { ...frame, metadata: { ...metadata, sender_id: world.agentId } };
    };
    world.server.advanceTime(1_001);
    await world.user.client.edit(world.conversationId, target.messageId, {
      type: 'text',
      text: 'the answer is 6',
    });
    world.server.advanceTime(1_001);
    await world.user.client.delete(world.conversationId, target.messageId);
    world.relay.onServerFrame = undefined;
    await userSays('after the attempts');
    expect(agentEdits.slice(before)).toEqual([]);
  });

  it('a genuine edit replayed into another conversation is refused, into the same one is a duplicate', async () => {
    expect(captured).toBeDefined();
    const before = userEdits.length;
    const failed = nextEvent<[FailedMessage]>(world.user.client, 'messageFailed');
    const metadata = captured!['metadata'] as Frame;
    userSocket(world.relay).toClient({
      ...captured,
      metadata: { ...metadata, conversation_id: `other-${crypto.randomUUID()}` },
      delivery_id: crypto.randomUUID(),
    });
    const [failure] = await failed;
    // The envelope is signed for its conversation.
    expect(failure.error).toMatchObject({ code: 'INVALID_ENVELOPE' });
    userSocket(world.relay).toClient({ ...captured, delivery_id: crypto.randomUUID() });
    await agentSays('after the replays');
    expect(userEdits.slice(before)).toEqual([]);
  });
});

describe('edits and deletes by another group member', () => {
  it("Bob, a member of the group, cannot edit or delete Ada's message; Ada's own edit goes through", async () => {
    const w = await createTestWorld({
      users: ['Ada', 'Bob'],
      agents: [{ name: 'Scribe', options: { status: false } }],
      groups: [{ name: 'Book club', members: ['Ada', 'Bob', 'Scribe'] }],
    });
    try {
      const [ada, bob] = w.users as [WorldUser, WorldUser];
      const { conversationId } = w.groups[0]!;
      const seen = { agent: [] as MessageEdited[], ada: [] as MessageEdited[], bob: [] as MessageEdited[] };
      const deleted: MessageDeleted[] = [];
      w.agent.on('messageEdited', (e) => void seen.agent.push(e));
      w.agent.on('messageDeleted', (e) => void deleted.push(e));
      ada.client.on('messageEdited', (e) => void seen.ada.push(e));
      bob.client.on('messageEdited', (e) => void seen.bob.push(e));
      bob.client.on('messageDeleted', (e) => void deleted.push(e));
      ada.client.on('messageDeleted', (e) => void deleted.push(e));

      const bobSaw = nextEvent<[ReceivedMessage]>(bob.client, 'message');
      const target = await w.sendAsUser('meet at 3', { user: ada, conversationId });
      await w.waitForDelivery((e) => e.type === 'message.new' && (e as IncomingMessage).messageId === target);
      await bobSaw;

      await bob.client.edit(conversationId, target, { type: 'text', text: 'meeting cancelled' });
      await bob.client.delete(conversationId, target);
      // Ada's own edit comes after Bob's in the conversation: once it arrives, Bob's were judged.
      const agentGot = nextEvent<[MessageEdited]>(w.agent, 'messageEdited');
      const bobGot = nextEvent<[MessageEdited]>(bob.client, 'messageEdited');
      await ada.client.edit(conversationId, target, { type: 'text', text: 'meet at 4' });
      await Promise.all([agentGot, bobGot]);
      expect(seen.agent).toMatchObject([
        { targetId: target, senderId: ada.userId, text: 'meet at 4', verified: true },
      ]);
      expect(seen.bob).toMatchObject([{ targetId: target, senderId: ada.userId, verified: true }]);
      expect(seen.ada.every((e) => e.senderId === ada.userId)).toBe(true);
      expect(deleted).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
