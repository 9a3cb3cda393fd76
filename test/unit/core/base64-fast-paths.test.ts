/**
 * The native fast paths of strict base64 (`isBase64` for long strings,
 * `decodeBase64Strict` in the envelope reader) and of the webhook body's
 * UTF-8 decoding must refuse exactly what the reference rules refuse:
 * non-canonical tails, base64url symbols, '=' inside, whitespace, and
 * characters above U+007F (Buffer reads only the low byte of `\u0141`, 'A').
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { decodeBase64Strict } from '../../../packages/sdk/src/crypto/envelope-wire.js';
import { isWebhookVerificationError } from '../../../packages/sdk/src/core/errors/guards.js';
import { parseWebhookDelivery } from '../../../packages/sdk/src/webhook/delivery.js';

/** The rule as first written (a regular expression), the reference for the fast paths. */
const reference = (t: string): boolean => {
  if (t.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(t)) return false;
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  if (t.endsWith('==')) return (A.indexOf(t[t.length - 3]!) & 15) === 0;
  if (t.endsWith('=')) return (A.indexOf(t[t.length - 2]!) & 3) === 0;
  return true;
};

const long = Buffer.alloc(300, 7).toString('base64'); // 400 characters: the native path (64 and up)
const at = (text: string, i: number, ch: string): string => text.slice(0, i) + ch + text.slice(i + 1);

describe('strict base64 fast paths', () => {
  it('refuse every corruption of a long valid string, as the reference does', () => {
    const bad = [
      at(long, 10, '\u0141'), // low byte 0x41 = 'A'
      at(long, 10, '\u00c1'),
      at(long, 10, '-'),
      at(long, 10, '_'),
      at(long, 10, ' '),
      at(long, 10, '='),
      at(long, 10, '\n'),
      at(long, long.length - 1, '\u0141'),
      Buffer.alloc(299, 7).toString('base64').replace(/.=$/, 'B='), // non-canonical tail bits
      Buffer.alloc(298, 7).toString('base64').replace(/.==$/, 'B=='),
      long + 'A===',
    ];
    for (const text of bad) {
      expect(reference(text)).toBe(false);
      expect(isBase64(text)).toBe(false);
      expect(decodeBase64Strict(text)).toBeUndefined();
    }
    expect(isBase64(long)).toBe(true);
    expect(decodeBase64Strict(long)).toEqual(new Uint8Array(Buffer.alloc(300, 7)));
  });

  it('check strings longer than one decoding step (16,384 characters) in full', () => {
    const huge = Buffer.alloc(40_000, 9).toString('base64'); // 53,336 characters, 4 steps
    expect(isBase64(huge)).toBe(true);
    for (const i of [0, 16_383, 16_384, 16_387, 32_768, 53_000, huge.length - 3]) {
      for (const ch of ['=', '!', '-', '\u0141']) {
        const bad = at(huge, i, ch);
        expect(reference(bad)).toBe(false);
        expect(isBase64(bad)).toBe(false);
        expect(decodeBase64Strict(bad)).toBeUndefined();
      }
    }
    const padded = Buffer.alloc(12_289, 9).toString('base64'); // 16,388 characters, '==' in the second step
    expect(isBase64(padded)).toBe(true);
    expect(isBase64(padded.slice(0, -3) + 'B==')).toBe(false);
  });

  it('agree with the reference on arbitrary strings, short and long', () => {
    const symbol = fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \u0141\u00c1é',
    );
    const text = fc.oneof(
      fc.string({ unit: symbol, maxLength: 600 }),
      fc.uint8Array({ minLength: 150, maxLength: 600 }).chain((b) => {
        const valid = Buffer.from(b).toString('base64');
        return fc.tuple(fc.nat(valid.length - 1), symbol).map(([i, ch]) => at(valid, i, ch));
      }),
    );
    fc.assert(
      fc.property(text, (t) => {
        const expected = reference(t);
        expect(isBase64(t)).toBe(expected);
        expect(decodeBase64Strict(t) !== undefined).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('webhook body decoding', () => {
  const delivery = (envelope: string): string =>
    JSON.stringify({
      type: 'message.new',
      version: 'v1',
      wire_envelope: envelope,
      metadata: { conversation_id: 'c', sender_id: 's', created_at: '2026-01-01T00:00:00.000Z' },
    });

  it('refuses a wire_envelope with a wide character in a long string (WEBHOOK_PAYLOAD_INVALID)', () => {
    const err = (() => {
      try {
        parseWebhookDelivery(Buffer.from(delivery(at(long, 5, '\u0141'))));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isWebhookVerificationError(err)).toBe(true);
    expect(parseWebhookDelivery(Buffer.from(delivery(long))).wire_envelope).toBe(long);
  });

  it('keeps the strict decoder’s answers: invalid UTF-8 refused, U+FFFD and a byte order mark accepted', () => {
    const invalid = Buffer.concat([
      Buffer.from(delivery(long)).subarray(0, 20),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    expect(() => parseWebhookDelivery(invalid)).toThrow(/UTF-8/);
    const withFffd = Buffer.from(delivery(long).replace('"c"', '"c\uFFFD"'));
    expect(parseWebhookDelivery(withFffd).metadata.conversation_id).toBe('c\uFFFD');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(delivery(long))]);
    expect(parseWebhookDelivery(bom).wire_envelope).toBe(long);
  });
});
