/**
 * The quote cache behind `replyTo` (#26): a reply quotes the text the
 * receiver saw; another member reusing a message id cannot change what is
 * quoted (the first sender keeps the id); the cache is bounded; and
 * `withReplyTo` refuses what is not a message id.
 */
import { describe, expect, it } from 'vitest';
import { isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import { replyToOf, withReplyTo } from '../../../packages/sdk/src/core/protocol/replies.js';
import { QuoteCache } from '../../../packages/sdk/src/messaging/quote-cache.js';

describe('QuoteCache', () => {
  it('quotes the text of a message seen in the same conversation, the id only otherwise', () => {
    const q = new QuoteCache();
    q.remember('c1', 'm1', 'agent', { type: 'text', text: 'noon' });
    q.remember('c1', 'm2', 'agent', { type: 'file', name: 'x' });
    expect(q.replyOf('c1', { type: 'text', text: 'ok', reply_to: 'm1' })).toEqual({
      messageId: 'm1',
      text: 'noon',
      senderId: 'agent',
    });
    expect(q.replyOf('c2', { type: 'text', text: 'ok', reply_to: 'm1' })).toEqual({ messageId: 'm1' });
    expect(q.replyOf('c1', { type: 'text', text: 'ok', reply_to: 'm2' })).toEqual({ messageId: 'm2' });
    expect(q.replyOf('c1', { type: 'text', text: 'ok' })).toBeUndefined();
    expect(q.replyOf('c1', { type: 'text', text: 'ok', reply_to: 42 })).toBeUndefined();
  });

  it('a hostile member reusing a message id cannot change the quoted text', () => {
    const q = new QuoteCache();
    q.remember('g', 'm1', 'agent', { type: 'text', text: 'pay 10 EUR' });
    q.remember('g', 'm1', 'mallory', { type: 'text', text: 'pay 1000 EUR' });
    expect(q.replyOf('g', { type: 'text', text: 'ok', reply_to: 'm1' })).toMatchObject({
      text: 'pay 10 EUR',
      senderId: 'agent',
    });
  });

  it('keeps at most its bound, the oldest going first', () => {
    const q = new QuoteCache(2);
    for (const id of ['a', 'b', 'c']) q.remember('c', id, 's', { type: 'text', text: id });
    expect(q.replyOf('c', { type: 'text', text: '', reply_to: 'a' })).toEqual({ messageId: 'a' });
    expect(q.replyOf('c', { type: 'text', text: '', reply_to: 'c' })).toMatchObject({ text: 'c' });
  });
});

describe('withReplyTo / replyToOf', () => {
  it('adds reply_to and reads it back; refuses an empty id', () => {
    const p = withReplyTo({ type: 'text', text: 'hi' }, 'm1');
    expect(p).toEqual({ type: 'text', text: 'hi', reply_to: 'm1' });
    expect(replyToOf(p)).toBe('m1');
    let err: unknown;
    try {
      withReplyTo({ type: 'text', text: 'hi' }, '');
    } catch (e) {
      err = e;
    }
    expect(isValidationError(err)).toBe(true);
  });
});
