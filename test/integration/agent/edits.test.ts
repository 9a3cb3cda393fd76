/**
 * Edits, deletes and read receipts (#26) end to end against the reference
 * server, in WebSocket and webhook mode: each side edits and deletes its own
 * message and the other gets `messageEdited` / `messageDeleted` (verified:
 * it saw the original from the same sender), never a `message.new` or
 * `message`; an edit of a message the receiver never saw arrives with
 * `verified: false`; receipts flow both ways with `readReceipts: true`, and
 * with the option off nothing is sent (checked by the order of the
 * conversation: a marker sent after arrives with no receipt before it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentListenerArgs, IncomingMessage } from '../../../packages/sdk/src/agent/index.js';
import type { ReceivedMessage, UserClientEvents } from '../../../packages/sdk/src/client/index.js';
import { isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function userNext<E extends 'messageEdited' | 'messageDeleted' | 'messageRead'>(
  w: TestWorld,
  event: E,
): Promise<UserClientEvents[E][0]> {
  return new Promise((resolve) => {
    const on = (e: UserClientEvents[E][0]) => {
      w.user.off(event, on as never);
      resolve(e);
    };
    w.user.on(event, on as never);
  });
}

function agentNext<E extends 'messageEdited' | 'messageDeleted' | 'messageRead'>(
  w: TestWorld,
  event: E,
): Promise<AgentListenerArgs[E][0]> {
  return new Promise((resolve) => w.agent.once(event, ((e: AgentListenerArgs[E][0]) => resolve(e)) as never));
}

function userText(w: TestWorld, text: string): Promise<ReceivedMessage> {
  return new Promise((resolve) => {
    const on = (m: ReceivedMessage) => {
      if ((m.payload as { text?: unknown }).text !== text) return;
      w.user.off('message', on);
      resolve(m);
    };
    w.user.on('message', on);
  });
}

describe.each(['websocket', 'webhook'] as const)('edits, deletes and receipts, %s mode', (mode) => {
  it('each side edits, deletes and marks read; the other gets typed events, never a message', async () => {
    const w = (world = await createTestWorld({
      agent: { mode, options: { status: false, readReceipts: true } },
      users: [{ readReceipts: true }],
    }));
    const handled: IncomingMessage[] = [];
    const shown: ReceivedMessage[] = [];
    w.agent.on('message.new', (msg) => void handled.push(msg));
    w.user.on('message', (m) => void shown.push(m));
    await w.user.connect();
    const userId = w.user.session!.userId;

    // The agent edits and deletes its own message.
    const arrived = userText(w, 'the build is runing');
    const sent = await w.agent.send(w.conversationId, 'the build is runing');
    await arrived;
    const edited = userNext(w, 'messageEdited');
    await w.agent.edit(w.conversationId, sent.messageId, 'the build is running');
    expect(await edited).toMatchObject({
      conversationId: w.conversationId,
      targetId: sent.messageId,
      senderId: w.agentId,
      text: 'the build is running',
      payload: { type: 'text', text: 'the build is running' },
      verified: true,
    });
    const deleted = userNext(w, 'messageDeleted');
    await w.agent.delete(w.conversationId, sent.messageId);
    expect(await deleted).toMatchObject({ targetId: sent.messageId, senderId: w.agentId, verified: true });

    // The human edits and deletes theirs; the agent's handler never sees the actions.
    const question = await w.sendAsUser('what is 2+2?');
    await w.waitForDelivery((e) => e.type === 'message.new' && (e as IncomingMessage).messageId === question);
    const agentEdited = agentNext(w, 'messageEdited');
    await w.user.edit(w.conversationId, question, { type: 'text', text: 'what is 2+3?' });
    expect(await agentEdited).toMatchObject({
      targetId: question,
      senderId: userId,
      text: 'what is 2+3?',
      verified: true,
    });
    const agentDeleted = agentNext(w, 'messageDeleted');
    await w.user.delete(w.conversationId, question);
    expect(await agentDeleted).toMatchObject({ targetId: question, senderId: userId, verified: true });

    // An edit of a message the agent never saw: shown, but not verified.
    const unseen = agentNext(w, 'messageEdited');
    await w.user.edit(w.conversationId, 'sent-before-the-agent-joined', { type: 'text', text: 'x' });
    expect(await unseen).toMatchObject({ targetId: 'sent-before-the-agent-joined', verified: false });

    // Receipts, both ways.
    const userRead = userNext(w, 'messageRead');
    await w.agent.markRead(w.conversationId, [question]);
    expect(await userRead).toMatchObject({ readerId: w.agentId, messageIds: [question] });
    const agentRead = agentNext(w, 'messageRead');
    await w.user.markRead(w.conversationId, [sent.messageId]);
    expect(await agentRead).toMatchObject({ readerId: userId, messageIds: [sent.messageId] });

    expect(handled.map((m) => m.payload['type'])).toEqual(['text']);
    expect(shown.map((m) => m.payload['type'])).toEqual(['text']);

    // An inbox read lists the actions apart from the messages (they were listed as messages).
    const page = await w.user.messages(w.conversationId);
    expect(page.failed).toEqual([]);
    expect(page.messages.map((m) => m.payload['type'])).toEqual(['text', 'text']);
    expect(page.actions.map((m) => m.payload['type'])).toEqual([
      'message.edit',
      'message.delete',
      'message.edit',
      'message.delete',
      'message.edit',
      'receipt',
      'receipt',
    ]);
  });
});

it('with readReceipts off nothing is sent, and received receipts are dropped', async () => {
  // The agent has receipts on, the human off: the human sends none and drops the agent's.
  const w = (world = await createTestWorld({ agent: { options: { status: false, readReceipts: true } } }));
  const reads: unknown[] = [];
  w.user.on('messageRead', (e) => void reads.push(e));
  w.agent.on('messageRead', (e) => void reads.push(e));
  await w.user.connect();
  const question = await w.sendAsUser('hello');
  await w.waitForDelivery((e) => e.type === 'message.new' && (e as IncomingMessage).messageId === question);
  expect(await w.agent.markRead(w.conversationId, [question])).toBeDefined();
  expect(await w.user.markRead(w.conversationId, [question])).toBeUndefined();
  // Messages of a conversation arrive in order: a marker after a receipt would come after it.
  const marker = userText(w, 'marker');
  await w.agent.send(w.conversationId, 'marker');
  await marker;
  await w.sendAsUser('marker back');
  await w.waitForDelivery((e) => e.type === 'message.new' && (e as IncomingMessage).text === 'marker back');
  expect(reads).toEqual([]);
  // A bad id list is a ValidationError, with the option on or off.
  const err = await w.agent.markRead(w.conversationId, []).catch((e: unknown) => e);
  expect(isValidationError(err)).toBe(true);
});
