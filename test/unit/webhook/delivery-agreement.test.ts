/**
 * The dependency-free delivery validator of `./webhook` (`toWebhookDelivery`)
 * and the zod schema of the root entry (`parseWebhookDeliveryBody`) must
 * accept and refuse the same bodies. The one documented difference: a
 * cleartext `payload` is checked by zod and dropped unread by the receiver,
 * so for bodies carrying one, zod accepting implies the receiver accepting.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isValidationError,
  isWebhookVerificationError,
} from '../../../packages/sdk/src/core/errors/guards.js';
import { parseWebhookDeliveryBody } from '../../../packages/sdk/src/core/protocol/webhook-delivery.js';
import { isIsoUtcMillis as isIsoUtcMillisByDate } from '../../../packages/sdk/src/core/protocol/primitives.js';
import { isIsoUtcMillis } from '../../../packages/sdk/src/core/field-rules.js';
import { toWebhookDelivery } from '../../../packages/sdk/src/webhook/index.js';

type Body = Record<string, unknown>;
type Verdict = { ok: true; value: Body } | { ok: false };

function byReceiver(body: unknown): Verdict {
  try {
    return { ok: true, value: toWebhookDelivery(body) as unknown as Body };
  } catch (err) {
    expect(isWebhookVerificationError(err) && err.code === 'WEBHOOK_PAYLOAD_INVALID').toBe(true);
    return { ok: false };
  }
}

function byZod(body: unknown): Verdict {
  try {
    return { ok: true, value: parseWebhookDeliveryBody(body) as Body };
  } catch (err) {
    expect(isValidationError(err)).toBe(true);
    return { ok: false };
  }
}

/** The receiver's clean copy must equal zod's result restricted to the known fields. */
function knownFields(value: Body): Body {
  const meta = value['metadata'] as Body;
  const out: Body = {
    type: value['type'],
    version: value['version'],
    wire_envelope: value['wire_envelope'],
    metadata: {
      conversation_id: meta['conversation_id'],
      sender_id: meta['sender_id'],
      created_at: meta['created_at'],
    },
  };
  const r = value['ref'] as Body | undefined;
  if (r !== undefined) {
    out['ref'] = {
      type: r['type'],
      object_key: r['object_key'],
      size: r['size'],
      content_type: r['content_type'],
    };
  }
  return out;
}

function expectAgreement(body: unknown): boolean {
  const hand = byReceiver(body);
  const zod = byZod(body);
  expect(hand.ok, JSON.stringify(body)?.slice(0, 300)).toBe(zod.ok);
  if (hand.ok && zod.ok) expect(hand.value).toEqual(knownFields(zod.value));
  return hand.ok;
}

const ABSENT = Symbol('absent');
const long = (n: number) => 'a'.repeat(n);
const WRONG_TYPES = [null, 0, 7, true, [], {}, ABSENT];

/** Per field (a path into the body): values that must pass, and edge cases of its rule. */
const FIELDS: Record<string, { valid: readonly unknown[]; edges: readonly unknown[] }> = {
  type: { valid: ['message.new', 'future.event', long(100), 'é'], edges: ['', long(101)] },
  version: { valid: ['v1'], edges: ['v2', 'V1', ''] },
  'metadata.conversation_id': {
    valid: ['conv_1', '会话-1', 'a', long(256), 'a b'],
    edges: ['', long(257), 'a\u0000b', 'a\u001fb', 'a\u007fb', 'a\u0080b', 'a\u009fb'],
  },
  'metadata.sender_id': { valid: ['user_1', 'a\u00a0b'], edges: ['', long(257), 'a\nb'] },
  'metadata.created_at': {
    valid: ['2026-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z', '2024-02-29T23:59:59.999Z'],
    edges: [
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00.0000Z',
      '2026-01-01T00:00:00.000+00:00',
      '2026-02-30T00:00:00.000Z',
      '2025-02-29T00:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-01-01t00:00:00.000z',
      '2026-01-01 00:00:00.000Z',
      '+010000-01-01T00:00:00.000Z',
      'yesterday',
    ],
  },
  wire_envelope: {
    valid: ['AAEC', 'AA==', 'AAE=', 'ZW52ZWxvcGUtYnl0ZXMtAAEC/w=='],
    edges: ['AB==', 'AAF=', 'AAE', '', 'AA AA', 'AA-_', '====', 'AAEC\n', '=AAA', 'AAEC===='],
  },
  'ref.type': { valid: ['r2'], edges: ['s3', 'R2', ''] },
  'ref.object_key': {
    valid: ['agents/a1/objects/o-42', 'obj_1', 'é', long(1024), 'a..b/.c/...', 'a%2F..'],
    edges: ['a/../b', 'a/./b', '..', '.', '/a', 'a//b', 'a/', 'a b', 'a\tb', 'a?b', 'a#b', 'a\\b'].concat([
      'a\u0001b',
      'a\u00a0b',
      'a\u2028b',
      'a\ufeffb',
      long(1025),
      '',
    ]),
  },
  'ref.size': { valid: [0, 1, 2_000_000, 2 ** 53 - 1], edges: [-1, 1.5, 2 ** 53, 1e300, '10', -0.5] },
  'ref.content_type': {
    valid: [
      'application/octet-stream',
      'Application/Octet-Stream',
      'text/plain; charset=utf-8',
      `a/${long(127)}`,
      `${long(127)}/a`,
    ],
    edges: [
      'text',
      '/plain',
      'a/b/c',
      `a/${long(128)}`,
      `${long(128)}/a`,
      `a/b;${long(260)}`,
      '',
      ' a/b',
      'a /b',
      'a/b ',
    ],
  },
};

const INLINE: Body = {
  type: 'message.new',
  version: 'v1',
  wire_envelope: 'AAEC',
  metadata: { conversation_id: 'c1', sender_id: 's1', created_at: '2026-01-01T00:00:00.000Z' },
};
const REFERENCED: Body = {
  ...INLINE,
  wire_envelope: null,
  ref: { type: 'r2', object_key: 'a/b', size: 10, content_type: 'application/octet-stream' },
};

/** A deep copy of `body` with `path` set to `value` (or removed for {@link ABSENT}). */
function withField(body: Body, path: string, value: unknown): Body {
  const copy = structuredClone(body);
  const keys = path.split('.');
  let target: Body = copy;
  for (const k of keys.slice(0, -1)) {
    if (typeof target[k] !== 'object' || target[k] === null) target[k] = {};
    target = target[k] as Body;
  }
  const last = keys.at(-1)!;
  if (value === ABSENT) delete target[last];
  else target[last] = value;
  return copy;
}

/** Every body reaches the validator as JSON text, so candidates go through JSON first. */
const asWire = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

describe('field rules mirrored from the zod model', () => {
  it('isIsoUtcMillis answers as the Date.parse + toISOString round trip for any digits in the pattern', () => {
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    const stamp = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        two(19),
        two(39),
        two(29),
        two(69),
        two(69),
        fc.integer({ min: 0, max: 999 }),
      )
      .map(
        ([y, mo, d, h, mi, s, ms]) =>
          `${String(y).padStart(4, '0')}-${mo}-${d}T${h}:${mi}:${s}.${String(ms).padStart(3, '0')}Z`,
      );
    fc.assert(
      fc.property(
        fc.oneof(
          stamp,
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        ),
        (text) => {
          expect(isIsoUtcMillis(text)).toBe(isIsoUtcMillisByDate(text));
        },
      ),
      { numRuns: 3000 },
    );
    for (const text of ['2024-02-29T00:00:00.000Z', '2100-02-29T00:00:00.000Z', '2000-02-29T23:59:59.999Z']) {
      expect(isIsoUtcMillis(text)).toBe(isIsoUtcMillisByDate(text));
    }
  });
});

describe('the receiver validator agrees with the zod schema', () => {
  it('on every single-field edge case of both forms', () => {
    let accepted = 0;
    let refused = 0;
    for (const base of [INLINE, REFERENCED]) {
      expect(expectAgreement(base)).toBe(true);
      for (const [path, { valid, edges }] of Object.entries(FIELDS)) {
        for (const value of [...valid, ...edges, ...WRONG_TYPES]) {
          if (expectAgreement(asWire(withField(base, path, value)))) accepted++;
          else refused++;
        }
      }
    }
    expect(accepted).toBeGreaterThan(40);
    expect(refused).toBeGreaterThan(150);
  });

  it('on the two forms mixed up: envelope with ref, null envelope without ref, absent envelope', () => {
    const { ref } = REFERENCED;
    for (const body of [
      { ...INLINE, ref },
      { ...INLINE, ref: null },
      { ...REFERENCED, ref: ABSENT },
      { ...REFERENCED, wire_envelope: ABSENT },
      { ...REFERENCED, ref: 'a/b' },
      { ...REFERENCED, ref: [] },
    ]) {
      const wire = asWire(Object.fromEntries(Object.entries(body).filter(([, v]) => v !== ABSENT)));
      expect(expectAgreement(wire)).toBe(false);
    }
  });

  it('on generated bodies: several fields varied at once, and arbitrary JSON', () => {
    const pick = (path: string) => {
      const { valid, edges } = FIELDS[path]!;
      return fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...valid) },
        { weight: 1, arbitrary: fc.constantFrom(...edges, ...WRONG_TYPES) },
        { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
      );
    };
    const body = fc
      .tuple(
        fc.constantFrom(INLINE, REFERENCED),
        fc.record(Object.fromEntries(Object.keys(FIELDS).map((p) => [p, pick(p)]))),
        fc.option(fc.jsonValue(), { nil: undefined }),
      )
      .map(([base, values, extra]) => {
        let out = base;
        const own = base === INLINE ? (p: string) => !p.startsWith('ref.') : () => true;
        for (const [path, value] of Object.entries(values)) if (own(path)) out = withField(out, path, value);
        return asWire(extra === undefined ? out : { ...out, extra });
      });
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: body }, { weight: 1, arbitrary: fc.jsonValue() }), (b) => {
        if (expectAgreement(b)) accepted++;
      }),
      // Fixed seed: the count below is a property of the sample, not of every input.
      { seed: 0x61677265, numRuns: 1500 },
    );
    expect(accepted).toBeGreaterThan(50);
  });

  it('a cleartext payload is checked by zod only: zod accepting implies the receiver accepting', () => {
    const payload = fc.oneof(
      fc.constant({ user_id: 'u1', conversation_id: 'c1' }),
      fc.constant({ status: 'denied', reason: 'user_rejected' }),
      fc.constant({ status: 'denied' }),
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue(), { maxKeys: 3 }),
      fc.constantFrom(null, 1, 'x', []),
    );
    const type = fc.constantFrom(
      'message.new',
      'relation.revoked',
      'artifact_response',
      'grant.revoked',
      'x.y',
    );
    fc.assert(
      fc.property(fc.constantFrom(INLINE, REFERENCED), type, payload, (base, t, p) => {
        const body = asWire({ ...base, type: t, payload: p });
        const zod = byZod(body);
        const hand = byReceiver(body);
        expect(hand.ok).toBe(true);
        if (hand.ok) expect('payload' in hand.value).toBe(false);
        if (zod.ok) expect(hand.ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['message.new with a payload', { payload: { text: 'x' } }],
    ['relation.revoked without user_id', { type: 'relation.revoked', payload: { conversation_id: 'c' } }],
  ])(
    'where they differ: %s is refused by zod and accepted (payload dropped) by the receiver',
    (_n, patch) => {
      const body: Body = { ...INLINE, ...patch };
      expect(byZod(body).ok).toBe(false);
      const { payload: _dropped, ...known } = body;
      expect(byReceiver(body)).toEqual({ ok: true, value: known });
    },
  );
});
