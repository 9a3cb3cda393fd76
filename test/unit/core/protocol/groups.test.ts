import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  CreateGroupRequestSchema,
  GroupKeyRotatedPayloadSchema,
  GroupUpdatedPayloadSchema,
  INVITE_CODE_ALPHABET,
  inviteCodeFromBytes,
  JoinGroupRequestSchema,
  normalizeInviteCode,
  parseInviteCode,
  RotateGroupKeyRequestSchema,
} from '../../../../packages/sdk/src/core/protocol/groups.js';
import { GroupDetailSchema } from '../../../../packages/sdk/src/messaging/wire/groups.js';
import { ConversationDetailSchema } from '../../../../packages/sdk/src/messaging/wire/conversations.js';

const CANONICAL = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;
const bytes8 = fc.uint8Array({ minLength: 8, maxLength: 8 });

describe('invite codes', () => {
  it('formats 8 random bytes as a canonical code the parser returns unchanged', () => {
    fc.assert(
      fc.property(bytes8, (b) => {
        const code = inviteCodeFromBytes(b);
        expect(code).toMatch(CANONICAL);
        expect(parseInviteCode(code)).toBe(code);
      }),
    );
  });

  it('reads a code typed loosely: any case, without hyphens, with spaces, I/L as 1 and O as 0', () => {
    fc.assert(
      fc.property(bytes8, fc.boolean(), fc.boolean(), (b, lower, spaced) => {
        const code = inviteCodeFromBytes(b);
        let typed = code.replaceAll('-', spaced ? ' ' : '');
        if (lower) typed = typed.toLowerCase();
        expect(parseInviteCode(typed)).toBe(code);
      }),
    );
    expect(parseInviteCode('oooo-iiii-llll')).toBe('0000-1111-1111');
  });

  it('answers every other input with a ValidationError that never repeats the input', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        try {
          const code = parseInviteCode(input);
          expect(code).toMatch(CANONICAL);
        } catch (err) {
          expect(isValidationError(err)).toBe(true);
          if (typeof input === 'string' && input.length > 3)
            expect((err as Error).message).not.toContain(input);
        }
      }),
    );
  });

  it('refuses wrong lengths, letters outside the alphabet and oversized text', () => {
    for (const bad of [
      '',
      'ABCD-EFGH-JKM',
      'ABCD-EFGH-JKMNP',
      'ABCD-EFGH-JKMU',
      'ABCD_EFGH_JKMN',
      'Ä'.repeat(12),
    ]) {
      expect(normalizeInviteCode(bad)).toBeUndefined();
    }
    expect(normalizeInviteCode(`${'-'.repeat(30)}ABCDEFGHJKMN`)).toBeUndefined();
    expect(normalizeInviteCode(42)).toBeUndefined();
    expect(INVITE_CODE_ALPHABET).toHaveLength(32);
    expect(() => inviteCodeFromBytes(new Uint8Array(7))).toThrow(RangeError);
  });
});

describe('group request schemas', () => {
  const schemas = {
    CreateGroupRequestSchema,
    JoinGroupRequestSchema,
    RotateGroupKeyRequestSchema,
    GroupUpdatedPayloadSchema,
    GroupKeyRotatedPayloadSchema,
    GroupDetailSchema,
    ConversationDetailSchema,
  };

  it('never throw on arbitrary input (safeParse), and what they accept has the required fields', () => {
    fc.assert(
      fc.property(fc.anything(), fc.constantFrom(...Object.values(schemas)), (input, schema) => {
        const r = (schema as { safeParse(x: unknown): { success: boolean } }).safeParse(input);
        expect(typeof r.success).toBe('boolean');
      }),
      { numRuns: 500 },
    );
  });

  it('create: name trimmed to 1..64 without control characters, at most 32 agents, no unknown fields', () => {
    expect(CreateGroupRequestSchema.parse({ name: '  Crew  ' })).toEqual({ name: 'Crew', agent_ids: [] });
    for (const bad of [
      {},
      { name: '   ' },
      { name: 'x'.repeat(65) },
      { name: 'a\u0007b' },
      { name: 'ok', agent_ids: Array.from({ length: 33 }, (_, i) => `a${i}`) },
      { name: 'ok', agent_ids: [''] },
      { name: 'ok', extra: 1 },
    ]) {
      expect(CreateGroupRequestSchema.safeParse(bad).success).toBe(false);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (name) => {
        const r = CreateGroupRequestSchema.safeParse({ name });
        const trimmed = name.trim();
        const control = [...trimmed].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
        const ok = trimmed.length >= 1 && trimmed.length <= 64 && !control;
        expect(r.success).toBe(ok);
      }),
    );
  });

  it('join: the code is normalised; rotate: based_on_version is a positive integer', () => {
    expect(JoinGroupRequestSchema.parse({ code: 'abcd efgh jkmn' })).toEqual({ code: 'ABCD-EFGH-JKMN' });
    expect(JoinGroupRequestSchema.safeParse({ code: 'nope' }).success).toBe(false);
    expect(JoinGroupRequestSchema.safeParse({ code: 'ABCD-EFGH-JKMN', x: 1 }).success).toBe(false);
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double(), fc.string()), (v) => {
        const ok = typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;
        expect(RotateGroupKeyRequestSchema.safeParse({ based_on_version: v }).success).toBe(ok);
      }),
    );
  });

  it('a conversation detail is either kind: one-to-one or group', () => {
    const key = Buffer.alloc(32, 9).toString('base64');
    const member = { id: 'u1', kind: 'user', public_key: key };
    const direct = {
      conversation_id: 'c',
      user_id: 'u1',
      agent_id: 'a1',
      state: 'established',
      members: [member],
    };
    const group = {
      conversation_id: 'g',
      kind: 'group',
      name: 'G',
      owner_id: 'u1',
      key_version: 1,
      members: [member],
    };
    expect(ConversationDetailSchema.safeParse(direct).success).toBe(true);
    expect(ConversationDetailSchema.safeParse(group).success).toBe(true);
    expect(ConversationDetailSchema.safeParse({ ...group, key_version: 0 }).success).toBe(false);
    expect(ConversationDetailSchema.safeParse({ ...group, members: [] }).success).toBe(false);
  });
});
