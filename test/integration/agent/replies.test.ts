/**
 * Replies (#26) end to end against the reference server, in WebSocket and
 * webhook mode: the agent answers with `msg.reply(text, { replyTo })` and the
 * human gets `replyTo` with the quoted text; the human answers the agent's
 * message with `send(…, { replyTo })` and the agent's handler gets the same.
 * The id travels sealed in the payload (`reply_to`); the quoted text is the
 * receiver's own copy, never the sender's word. A quote of a message the
 * receiver never saw carries the id only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingMessage } from '../../../packages/sdk/src/agent/index.js';
import type { ReceivedMessage } from '../../../packages/sdk/src/client/index.js';
import { isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function nextMessage(w: TestWorld, text: string): Promise<ReceivedMessage> {
  return new Promise((resolve) => {
    const on = (m: ReceivedMessage) => {
      if ((m.payload as { text?: unknown }).text !== text) return;
      w.user.off('message', on);
      resolve(m);
    };
    w.user.on('message', on);
  });
}

describe.each(['websocket', 'webhook'] as const)('replies, %s mode', (mode) => {
  it('both sides reply to a message id; each receiver quotes the text it saw', async () => {
    const w = (world = await createTestWorld({ agent: { mode, options: { status: false } } }));
    const received: IncomingMessage[] = [];
    w.agent.on('message.new', async (msg) => {
      received.push(msg);
      if (msg.text === 'what time is it?') await msg.reply('noon', { replyTo: msg.messageId });
    });
    await w.user.connect();
    const answer = nextMessage(w, 'noon');
    const question = await w.sendAsUser('what time is it?');
    const noon = await answer;
    expect(noon.replyTo).toEqual({
      messageId: question,
      text: 'what time is it?',
      senderId: w.user.session!.userId,
    });
    expect((noon.payload as Record<string, unknown>)['reply_to']).toBe(question);

    await w.user.send(w.conversationId, { type: 'text', text: 'thanks' }, { replyTo: noon.messageId });
    const thanks = await w.waitForDelivery(
      (e) => e.type === 'message.new' && (e as IncomingMessage).text === 'thanks',
    );
    expect((thanks as IncomingMessage).replyTo).toEqual({
      messageId: noon.messageId,
      text: 'noon',
      senderId: w.agentId,
    });

    await w.user.send(w.conversationId, { type: 'text', text: 'and this?' }, { replyTo: 'never-seen' });
    const unknown = await w.waitForDelivery(
      (e) => e.type === 'message.new' && (e as IncomingMessage).text === 'and this?',
    );
    expect((unknown as IncomingMessage).replyTo).toEqual({ messageId: 'never-seen' });
    expect(received.find((m) => m.text === 'what time is it?')?.replyTo).toBeUndefined();
  });
});

it('a replyTo that is not a message id is a ValidationError before anything is sent', async () => {
  const w = (world = await createTestWorld());
  const err = await w.agent.send(w.conversationId, 'x', { replyTo: '' }).catch((e: unknown) => e);
  expect(isValidationError(err)).toBe(true);
});
