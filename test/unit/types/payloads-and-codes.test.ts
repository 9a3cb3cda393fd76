/**
 * Issue #23, types: message payloads are a discriminated union (narrowing on
 * `type` gives typed fields, `files.download` takes the typed file payload)
 * and error codes are strict (a typo does not compile) while an unknown code
 * from a newer service stays representable. The `@ts-expect-error` lines are
 * checked by `npm run typecheck` (tsconfig.check.json includes test/); each
 * fails the type check the day the line compiles.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  isServiceError,
  ServiceError,
  type ErrorCode,
  type FilePayload,
  type IncomingMessage,
  type MessagePayload,
  type UnknownErrorCode,
} from '../../../packages/sdk/src/index.js';
import { parseMessagePayload, toErrorCode, type AnyErrorCode } from '../../../packages/sdk/src/protocol.js';
import type { FileTransfer } from '../../../packages/sdk/src/files/file-transfer.js';

/** What a handler does with each payload kind; the switch must stay exhaustive. */
function describePayload(payload: MessagePayload): string {
  switch (payload.type) {
    case 'text':
      expectTypeOf(payload.text).toEqualTypeOf<string>();
      return `text ${payload.text}`;
    case 'file':
      expectTypeOf(payload.object_key).toEqualTypeOf<string>();
      expectTypeOf(payload.size).toEqualTypeOf<number>();
      return `file ${payload.name} (${payload.size} bytes)`;
    case 'artifact':
      expectTypeOf(payload.content.kind).toEqualTypeOf<'confirm' | 'form' | 'tool_request'>();
      return payload.content.kind === 'form'
        ? `form of ${payload.content.fields.length}`
        : payload.content.kind;
    case 'artifact_response':
      return payload.status === 'denied' ? `denied: ${payload.reason}` : 'approved';
    case 'reaction':
      expectTypeOf(payload.action).toEqualTypeOf<'add' | 'remove'>();
      return `${payload.action} ${payload.emoji}`;
    case 'forwarded':
      return `forwarded from ${payload.original.sender_id}`;
    default:
      // A kind newer than this SDK: TypeScript sees never; its type is still there.
      expectTypeOf(payload).toEqualTypeOf<never>();
      return `unknown ${(payload as { type: string }).type}`;
  }
}

describe('MessagePayload', () => {
  it('narrows on type, and a newer kind still reaches the default branch', () => {
    expectTypeOf<MessagePayload['type']>().toEqualTypeOf<
      'text' | 'file' | 'artifact' | 'artifact_response' | 'reaction' | 'forwarded'
    >();
    expectTypeOf<IncomingMessage['payload']>().toEqualTypeOf<MessagePayload>();
    expect(describePayload({ type: 'text', text: 'hi' })).toBe('text hi');
    expect(describePayload({ type: 'reaction', message_id: 'm1', emoji: '👍', action: 'add' })).toBe(
      'add 👍',
    );
    // parseMessagePayload keeps an unknown kind as it came (forward compatibility).
    expect(describePayload(parseMessagePayload({ type: 'poll', question: '?' }))).toBe('unknown poll');
  });

  it('rejects a misspelt payload type and fields of another kind', () => {
    const payload = parseMessagePayload({ type: 'reaction', message_id: 'm1', emoji: '👍', action: 'add' });
    // @ts-expect-error: 'fiel' is no payload type.
    expect(payload.type === 'fiel').toBe(false);
    expect(payload.type).toBe('reaction');
    if (payload.type === 'reaction') {
      // @ts-expect-error: object_key belongs to file payloads.
      expect(payload.object_key).toBeUndefined();
    }
  });

  it('files.download takes the typed file payload, not anything', () => {
    type Download = FileTransfer['download'];
    expectTypeOf<Parameters<Download>[0]>().toEqualTypeOf<FilePayload>();
    // @ts-expect-error: a text payload is no file payload.
    const wrong: Parameters<Download>[0] = { type: 'text', text: 'x' };
    expect(wrong.type).toBe('text');
  });
});

describe('ErrorCode', () => {
  const err: unknown = new ServiceError({ code: 'RELATION_REVOKED', status: 403, message: 'revoked' });

  it('a typo in a code does not compile', () => {
    // @ts-expect-error: RELATION_REVOKD is no catalogue code.
    expect(isServiceError(err, 'RELATION_REVOKD')).toBe(false);
    // @ts-expect-error: nor here.
    const code: ErrorCode = 'RATE_LIMTED';
    // @ts-expect-error: and a plain string is not an error code either.
    const any: AnyErrorCode = 'NOT_A_CODE';
    expect([code, any]).toHaveLength(2);
    expectTypeOf<string>().not.toMatchTypeOf<AnyErrorCode>();
  });

  it('narrows err.code with the guard', () => {
    expect(isServiceError(err, 'RELATION_REVOKED')).toBe(true);
    if (isServiceError(err, 'RELATION_REVOKED')) expectTypeOf(err.code).toEqualTypeOf<'RELATION_REVOKED'>();
  });

  it('keeps an unknown code from a newer service representable', () => {
    const code = toErrorCode('QUOTA_EXHAUSTED_2027');
    expectTypeOf(code).toEqualTypeOf<AnyErrorCode>();
    const newer = new ServiceError({ code, status: 403, message: 'newer service' });
    expect(newer.code).toBe('QUOTA_EXHAUSTED_2027');
    expect(isServiceError(newer, code)).toBe(true);
    expectTypeOf<UnknownErrorCode>().toMatchTypeOf<string>();
    expect(toErrorCode('NOT_FOUND')).toBe('NOT_FOUND');
  });
});
