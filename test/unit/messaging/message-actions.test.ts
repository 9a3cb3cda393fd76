/**
 * Message actions (#26): the parser of `message.edit`, `message.delete` and
 * `receipt` payloads (fast-check against an oracle, fixed seed), the
 * builders, and the receiver's judgement: an edit or delete counts only
 * from the sender it remembers for the target; an unknown target is
 * `verified: false`; receipts are dropped with the option off.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import {
  deletePayload,
  editPayload,
  readMessageAction,
  RECEIPT_MAX_IDS,
  receiptPayload,
} from '../../../packages/sdk/src/core/protocol/message-actions.js';
import { IdentifierSchema } from '../../../packages/sdk/src/core/protocol/primitives.js';
import { resolveAction } from '../../../packages/sdk/src/messaging/message-actions.js';
import { QuoteCache } from '../../../packages/sdk/src/messaging/quote-cache.js';

const isId = (v: unknown): boolean => IdentifierSchema.safeParse(v).success;
const ACTIONS = ['message.edit', 'message.delete', 'receipt'];

describe('readMessageAction (fast-check)', () => {
  it('parses exactly the documented shapes; other kinds are no action; never throws', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            type: fc.oneof(fc.constantFrom(...ACTIONS, 'text'), fc.string()),
            target_id: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()),
            payload: fc.oneof(
              fc.record({ type: fc.oneof(fc.constantFrom('text', ...ACTIONS), fc.string()) }),
              fc.anything(),
            ),
            message_ids: fc.oneof(fc.array(fc.string({ maxLength: 20 }), { maxLength: 110 }), fc.anything()),
          },
          { requiredKeys: [] },
        ),
        (input) => {
          const got = readMessageAction(input);
          const type = input.type;
          if (typeof type !== 'string' || !ACTIONS.includes(type)) {
            expect(got).toBeUndefined();
            return;
          }
          let valid: boolean;
          if (type === 'message.delete') valid = isId(input.target_id);
          else if (type === 'message.edit') {
            const p = input.payload as { type?: unknown } | undefined;
            valid =
              isId(input.target_id) &&
              typeof p === 'object' &&
              p !== null &&
              !Array.isArray(p) &&
              typeof p.type === 'string' &&
              p.type.length >= 1 &&
              p.type.length <= 100 &&
              !ACTIONS.includes(p.type);
          } else {
            const ids = input.message_ids;
            valid = Array.isArray(ids) && ids.length >= 1 && ids.length <= RECEIPT_MAX_IDS && ids.every(isId);
          }
          if (valid) expect(got).toMatchObject({ type });
          else expect(got).toBe('invalid');
        },
      ),
      { seed: 26, numRuns: 500 },
    );
  });

  it('no action at all for non-objects', () => {
    for (const v of [null, 'message.edit', 3, undefined]) expect(readMessageAction(v)).toBeUndefined();
  });
});

describe('builders', () => {
  it('build what the parser reads back; refuse bad input with a ValidationError', () => {
    const edit = editPayload('m1', { type: 'text', text: 'new' });
    expect(readMessageAction(edit)).toEqual(edit);
    expect(readMessageAction(deletePayload('m1'))).toEqual({ type: 'message.delete', target_id: 'm1' });
    expect(readMessageAction(receiptPayload(['a', 'b']))).toEqual({
      type: 'receipt',
      message_ids: ['a', 'b'],
    });
    const bad = [
      () => editPayload('', { type: 'text', text: 'x' }),
      () => editPayload('m1', { type: 'message.delete', target_id: 'm2' }),
      () => deletePayload(''),
      () => receiptPayload([]),
      () => receiptPayload(Array.from({ length: RECEIPT_MAX_IDS + 1 }, (_, i) => `m${i}`)),
    ];
    for (const f of bad) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect(isValidationError(err)).toBe(true);
    }
  });
});

describe('resolveAction', () => {
  const carrier = (senderId: string, conversationId = 'c1') => ({
    conversationId,
    senderId,
    messageId: 'x1',
  });

  it('accepts an edit from the remembered sender (and quotes the new text), refuses it from anyone else', () => {
    const q = new QuoteCache();
    q.remember('c1', 'm1', 'alice', { type: 'text', text: 'old' });
    const mallory = resolveAction(
      q,
      carrier('mallory'),
      editPayload('m1', { type: 'text', text: 'evil' }),
      false,
    );
    expect(mallory).toEqual({ kind: 'refused', why: 'not_the_sender' });
    const alice = resolveAction(q, carrier('alice'), editPayload('m1', { type: 'text', text: 'new' }), false);
    expect(alice).toMatchObject({ kind: 'edited', event: { targetId: 'm1', text: 'new', verified: true } });
    expect(q.replyOf('c1', { type: 'text', text: 'r', reply_to: 'm1' })).toMatchObject({ text: 'new' });
    // Another conversation: the target was never seen there.
    const elsewhere = resolveAction(q, carrier('alice', 'c2'), deletePayload('m1'), false);
    expect(elsewhere).toMatchObject({ kind: 'deleted', event: { verified: false } });
  });

  it('a delete forgets the quoted text but keeps the sender, so a later forged edit is still refused', () => {
    const q = new QuoteCache();
    q.remember('c1', 'm1', 'alice', { type: 'text', text: 'old' });
    expect(resolveAction(q, carrier('alice'), deletePayload('m1'), false)).toMatchObject({
      kind: 'deleted',
      event: { verified: true },
    });
    expect(q.replyOf('c1', { type: 'text', text: 'r', reply_to: 'm1' })).toEqual({ messageId: 'm1' });
    expect(resolveAction(q, carrier('bob'), editPayload('m1', { type: 'text', text: 'x' }), false).kind).toBe(
      'refused',
    );
  });

  it('actions are never remembered as messages; receipts only with the option on', () => {
    const q = new QuoteCache();
    q.remember('c1', 'a1', 'bob', deletePayload('m1'));
    expect(q.judge('c1', 'a1', 'alice')).toBe('unverified');
    expect(resolveAction(q, carrier('bob'), receiptPayload(['m1']), false)).toEqual({
      kind: 'refused',
      why: 'receipts_off',
    });
    expect(resolveAction(q, carrier('bob'), receiptPayload(['m1']), true)).toEqual({
      kind: 'read',
      event: { conversationId: 'c1', readerId: 'bob', messageIds: ['m1'], messageId: 'x1' },
    });
  });
});
