/**
 * Parsers of artifacts, answers, reactions and forward requests: valid
 * input round-trips, malformed input is a ValidationError (never a crash),
 * checked with fast-check properties.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  answerDataProblems,
  ARTIFACT_LIMITS,
  CreateArtifactRequestSchema,
  FORWARD_TARGET_MAX,
  parseArtifactAnswer,
  parseArtifactContent,
  parseArtifactPayload,
  parseForwardRequest,
  parseReactionPayload,
  type ArtifactContent,
} from '../../../../packages/sdk/src/core/protocol/artifacts.js';

const id = fc.stringMatching(/^[A-Za-z0-9-]{1,40}$/);
const title = fc.string({ minLength: 1, maxLength: 200 });
const fieldName = fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/);

const confirm = fc.record({ kind: fc.constant('confirm' as const), title });
const field = fc.oneof(
  fc.record({
    name: fieldName,
    label: title,
    input: fc.constantFrom('text' as const, 'number' as const, 'boolean' as const),
    required: fc.boolean(),
  }),
  fc.record({
    name: fieldName,
    label: title,
    input: fc.constant('choice' as const),
    options: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { minLength: 1, maxLength: 5 }),
  }),
);
const form = fc.record({
  kind: fc.constant('form' as const),
  title,
  fields: fc.uniqueArray(field, { minLength: 1, maxLength: 8, selector: (f) => f.name }),
});
const tool = fc.record({
  kind: fc.constant('tool_request' as const),
  title,
  tool: fc.record({
    name: fc.string({ minLength: 1, maxLength: 100 }),
    arguments: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue()),
    timeout_ms: fc.integer({ min: ARTIFACT_LIMITS.minToolTimeoutMs, max: ARTIFACT_LIMITS.maxToolTimeoutMs }),
  }),
});
const content: fc.Arbitrary<ArtifactContent> = fc.oneof(confirm, form, tool);

/** Calls `parse`; true when it returned, false when it threw a ValidationError; rethrows anything else. */
function accepts(parse: (input: unknown) => unknown, input: unknown): boolean {
  try {
    parse(input);
    return true;
  } catch (err) {
    if (isValidationError(err)) return false;
    throw err;
  }
}

describe('artifact content', () => {
  it('accepts every well-formed content of each kind and keeps it as-is (property)', () => {
    fc.assert(
      fc.property(content, (c) => {
        expect(parseArtifactContent(c)).toEqual(c);
      }),
    );
  });

  it('never crashes on arbitrary input: parsed, or a ValidationError (property)', () => {
    fc.assert(fc.property(fc.anything(), (x) => void accepts(parseArtifactContent, x)));
  });

  it('refuses an unknown kind, an extra field, a choice without options, duplicate field names', () => {
    expect(accepts(parseArtifactContent, { kind: 'poll', title: 't' })).toBe(false);
    expect(accepts(parseArtifactContent, { kind: 'confirm', title: 't', extra: 1 })).toBe(false);
    const choice = { name: 'a', label: 'A', input: 'choice' };
    expect(accepts(parseArtifactContent, { kind: 'form', title: 't', fields: [choice] })).toBe(false);
    const text = { name: 'a', label: 'A', input: 'text' };
    expect(accepts(parseArtifactContent, { kind: 'form', title: 't', fields: [text, text] })).toBe(false);
    const noTimeout = { kind: 'tool_request', title: 't', tool: { name: 'x', arguments: {} } };
    expect(accepts(parseArtifactContent, noTimeout)).toBe(false);
  });

  it('a mutated field of a valid content is still either parsed or a ValidationError (property)', () => {
    fc.assert(
      fc.property(content, fc.string({ maxLength: 12 }), fc.anything(), (c, key, value) => {
        void accepts(parseArtifactContent, { ...c, [key]: value });
      }),
    );
  });
});

describe('artifact payload and answers', () => {
  const payload = fc.record({
    type: fc.constant('artifact' as const),
    artifact_id: id,
    revision: fc.integer({ min: 1, max: 1_000_000 }),
    forwardable: fc.boolean(),
    sensitivity: fc.constantFrom('normal' as const, 'high' as const),
    content,
  });

  it('round-trips a payload; revision 0 and unknown sensitivity are refused (property)', () => {
    fc.assert(
      fc.property(payload, (p) => {
        expect(parseArtifactPayload(p)).toEqual(p);
        expect(accepts(parseArtifactPayload, { ...p, revision: 0 })).toBe(false);
        expect(accepts(parseArtifactPayload, { ...p, sensitivity: 'medium' })).toBe(false);
      }),
    );
  });

  it('an approval carries data, a denial a known reason (property)', () => {
    const reason = fc.constantFrom(
      'user_rejected',
      'user_timeout',
      'tool_not_supported_in_group',
      'permission_revoked',
      'tool_timeout',
      'tool_not_implemented',
    );
    fc.assert(
      fc.property(id, reason, fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue()), (aid, r, data) => {
        const base = { type: 'artifact_response', artifact_id: aid, revision: 1 };
        expect(parseArtifactAnswer({ ...base, status: 'approved', data })).toMatchObject({ data });
        expect(parseArtifactAnswer({ ...base, status: 'denied', reason: r })).toMatchObject({ reason: r });
        expect(accepts(parseArtifactAnswer, { ...base, status: 'denied' })).toBe(false);
        expect(accepts(parseArtifactAnswer, { ...base, status: 'denied', reason: 'bored' })).toBe(false);
        expect(accepts(parseArtifactAnswer, { ...base, status: 'maybe' })).toBe(false);
      }),
    );
    fc.assert(fc.property(fc.anything(), (x) => void accepts(parseArtifactAnswer, x)));
  });

  it('checks form data against the fields', () => {
    const f = parseArtifactContent({
      kind: 'form',
      title: 't',
      fields: [
        { name: 'city', label: 'City', input: 'text', required: true },
        { name: 'n', label: 'N', input: 'number' },
        { name: 'c', label: 'C', input: 'choice', options: ['a', 'b'] },
      ],
    });
    expect(answerDataProblems(f, { city: 'Lyon', n: 2, c: 'a' })).toEqual([]);
    expect(answerDataProblems(f, {})).toEqual(['missing required field city']);
    expect(answerDataProblems(f, { city: 'x', n: 'two', c: 'z', other: 1 })).toHaveLength(3);
  });

  it('the create request carries routing metadata only: a plaintext content field is refused', () => {
    const ok = {
      conversation_id: 'c',
      artifact_id: 'a',
      forwardable: false,
      sensitivity: 'high',
      wire_envelope: 'AAAA',
    };
    expect(CreateArtifactRequestSchema.safeParse(ok).success).toBe(true);
    expect(CreateArtifactRequestSchema.safeParse({ ...ok, content: { kind: 'confirm' } }).success).toBe(
      false,
    );
    expect(CreateArtifactRequestSchema.safeParse({ ...ok, ttl_ms: 10 }).success).toBe(false);
  });
});

describe('reactions', () => {
  it('accepts emoji, refuses text and whitespace (property)', () => {
    const emoji = fc.constantFrom('👍', '🎉', '❤️', '👩‍💻', '🇫🇷', '😂');
    fc.assert(
      fc.property(id, emoji, fc.constantFrom('add' as const, 'remove' as const), (m, e, action) => {
        const r = { type: 'reaction', message_id: m, emoji: e, action };
        expect(parseReactionPayload(r)).toEqual(r);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[\w ]{1,10}$/), (text) => {
        expect(
          accepts(parseReactionPayload, { type: 'reaction', message_id: 'm', emoji: text, action: 'add' }),
        ).toBe(false);
      }),
    );
    fc.assert(fc.property(fc.anything(), (x) => void accepts(parseReactionPayload, x)));
  });
});

describe('forward request', () => {
  const target = fc.record({ conversation_id: id, wire_envelope: fc.constant('AAAA') });
  it('accepts 1 or more distinct targets, refuses none and repeats (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(target, {
          minLength: 1,
          maxLength: FORWARD_TARGET_MAX,
          selector: (t) => t.conversation_id,
        }),
        (targets) => {
          const body = { source: { conversation_id: 'c', message_id: 'm' }, targets };
          expect(parseForwardRequest(body).targets).toHaveLength(targets.length);
          expect(accepts(parseForwardRequest, { ...body, targets: [...targets, targets[0]] })).toBe(false);
          expect(accepts(parseForwardRequest, { ...body, targets: [] })).toBe(false);
        },
      ),
    );
    fc.assert(fc.property(fc.anything(), (x) => void accepts(parseForwardRequest, x)));
  });
});
