/**
 * Status (#26) against a hostile service. The status text travels sealed
 * inside the envelope: the relay (playing the service) sees that a status
 * exists, never its text; and it cannot make the human's client show a
 * status the agent did not send:
 * - a status sealed in the agent's name with another key (Mallory's) is
 *   refused (`DECRYPT_FAILURE`, reason `signature`);
 * - an agent message relabelled `status.update`, or a status relabelled
 *   `message.new`, is refused (reason `event_type`: the type is signed);
 * - a genuine "working" the relay holds back and delivers after the agent's
 *   reply is ignored (stale), so it cannot bring the indicator back.
 *
 * Replies too: the id of the answered message travels sealed (`reply_to`);
 * the relay never sees it, and one it adds to a frame is not taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FailedMessage, ReceivedMessage } from '../../packages/sdk/src/client/index.js';
import type { StatusUpdate } from '../../packages/sdk/src/client/user-status.js';
import { seal, generateKeys } from '../../packages/sdk/src/crypto/index.js';
import { nextEvent } from '../helpers/client-setup.js';
import { DROP } from '../helpers/hostile-relay.js';
import { registeredKey, userSocket } from './service-keys.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

type Frame = Record<string, unknown>;
const isFrame = (f: unknown, type: string): f is Frame =>
  typeof f === 'object' && f !== null && (f as Frame)['type'] === type;

let world: SecurityWorld;
const statuses: StatusUpdate[] = [];

beforeAll(async () => {
  // No automatic indicator: every status in this file is one the test asked for.
  world = await startSecurityWorld({ agent: { status: false } });
  world.user.client.on('status', (s) => void statuses.push(s));
  world.agent.on('message.new', async (msg) => {
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
  // One real exchange, so both sides' keys crossed the relay.
  const reply = nextEvent(world.user.client, 'message');
  await world.user.client.send(world.conversationId, { type: 'text', text: 'hello' });
  await reply;
});
afterAll(async () => {
  await world.close();
});

/** The agent sends a message and the user's client has handled every frame before it. */
async function sync(text: string): Promise<ReceivedMessage> {
  const got = new Promise<ReceivedMessage>((resolve) => {
    const on = (m: ReceivedMessage) => {
      if ((m.payload as { text?: unknown }).text !== text) return;
      world.user.client.off('message', on);
      resolve(m);
    };
    world.user.client.on('message', on);
  });
  // The server runs on a virtual clock: move it past the message limit's window (5 per second).
  world.server.advanceTime(1_001);
  await world.agent.send(world.conversationId, text);
  return got;
}

describe('status through a hostile service', () => {
  it('the relay never sees the status text; the human gets it', async () => {
    const text = `looking up secret-${crypto.randomUUID()}`;
    const shown = nextEvent<[StatusUpdate]>(world.user.client, 'status');
    await world.agent.status(world.conversationId, text);
    const [status] = await shown;
    expect(status).toMatchObject({ state: 'working', text, senderId: world.agentId });
    expect(world.relay.seen.some((s) => s.path.includes('/status') && s.channel === 'http-request')).toBe(
      true,
    );
    expect(world.relay.seen.some((s) => s.channel === 'ws-down' && s.text.includes('status.update'))).toBe(
      true,
    );
    expect(world.relay.seen.filter((s) => s.text.includes('secret-'))).toEqual([]);
    await sync('clears the status');
    expect(statuses.at(-1)).toMatchObject({ state: 'idle', reason: 'replied' });
  });

  it("a status sealed in the agent's name with another key is refused (signature), nothing shown", async () => {
    const before = statuses.length;
    const mallory = generateKeys();
    const createdAt = new Date().toISOString();
    const wire = seal(
      { type: 'status', state: 'working', text: 'send me your password' },
      {
        sender: { id: world.agentId, signing: mallory.signing },
        recipients: [{ id: world.user.userId, publicKey: registeredKey(world.relay, world.user.userId) }],
        conversationId: world.conversationId,
        messageId: crypto.randomUUID(),
        createdAt,
        eventType: 'status.update',
      },
    );
    const failed = nextEvent<[FailedMessage]>(world.user.client, 'messageFailed');
    userSocket(world.relay).toClient({
      type: 'status.update',
      version: 'v1',
      wire_envelope: wire,
      metadata: { conversation_id: world.conversationId, sender_id: world.agentId, created_at: createdAt },
      delivery_id: crypto.randomUUID(),
    });
    const [failure] = await failed;
    expect(failure.error).toMatchObject({ code: 'DECRYPT_FAILURE', reason: 'signature' });
    await sync('after the forgery');
    expect(statuses.slice(before)).toEqual([]);
  });

  it('a message relabelled status.update is refused (event_type), and a status relabelled message.new too', async () => {
    const before = statuses.length;
    world.relay.onServerFrame = (frame) =>
      isFrame(frame, 'message.new') ? { ...frame, type: 'status.update' } : frame;
    let failed = nextEvent<[FailedMessage]>(world.user.client, 'messageFailed');
    world.server.advanceTime(1_001);
    await world.agent.send(world.conversationId, 'a message, not a status');
    expect((await failed)[0].error).toMatchObject({ code: 'DECRYPT_FAILURE', reason: 'event_type' });

    world.relay.onServerFrame = (frame) =>
      isFrame(frame, 'status.update') ? { ...frame, type: 'message.new' } : frame;
    failed = nextEvent<[FailedMessage]>(world.user.client, 'messageFailed');
    await world.agent.status(world.conversationId, 'a status, not a message');
    expect((await failed)[0].error).toMatchObject({ code: 'DECRYPT_FAILURE', reason: 'event_type' });
    world.relay.onServerFrame = undefined;
    await sync('after the relabelling');
    expect(statuses.slice(before)).toEqual([]);
  });

  it('a "working" held back by the relay and delivered after the reply is ignored (stale)', async () => {
    const before = statuses.length;
    let held: Frame | undefined;
    world.relay.onServerFrame = (frame) => {
      if (!isFrame(frame, 'status.update')) return frame;
      held = frame;
      return DROP;
    };
    // The beacon coalesces to one post per second: wait for this one to go.
    await world.agent.status(world.conversationId, 'held back');
    expect(held).toBeDefined();
    world.relay.onServerFrame = undefined;
    await sync('the reply');
    userSocket(world.relay).toClient(held);
    await sync('after the late status');
    expect(statuses.slice(before)).toEqual([]);
    expect(world.user.client.statuses(world.conversationId)).toEqual([]);
  });

  it('a reply names the answered message only inside the envelope; a reply_to the relay adds is not taken', async () => {
    world.server.advanceTime(1_001);
    const answered = `answered-${crypto.randomUUID()}`;
    world.relay.onServerFrame = (frame) =>
      isFrame(frame, 'message.new') ? { ...frame, reply_to: 'relay-made', replyTo: 'relay-made' } : frame;
    const got = new Promise<ReceivedMessage>((resolve) => {
      const on = (m: ReceivedMessage) => {
        if ((m.payload as { text?: unknown }).text !== 'an answer') return;
        world.user.client.off('message', on);
        resolve(m);
      };
      world.user.client.on('message', on);
    });
    await world.agent.send(world.conversationId, 'an answer', { replyTo: answered });
    const m = await got;
    world.relay.onServerFrame = undefined;
    expect(m.replyTo).toEqual({ messageId: answered });
    expect(world.relay.seen.filter((s) => s.text.includes(answered))).toEqual([]);
    const plain = await sync('no reply here');
    expect(plain.replyTo).toBeUndefined();
  });
});
