import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8 } from '../../../packages/sdk/src/core/encoding.js';
import { isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import {
  decodePayload,
  encodePayload,
  EnvelopePayloadSchema,
} from '../../../packages/sdk/src/crypto/payload.js';

describe('payload encoding', () => {
  it('round-trips any JSON object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const decoded = decodePayload(encodePayload(obj));
        expect(decoded).toEqual(JSON.parse(JSON.stringify(obj)));
        expect(EnvelopePayloadSchema.safeParse(decoded).success).toBe(true);
      }),
    );
  });

  it('decodes only UTF-8 JSON objects, never throwing', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array(),
          fc.jsonValue().map((v) => utf8(JSON.stringify(v) ?? 'x')),
        ),
        (bytes) => {
          const out = decodePayload(bytes);
          if (out !== undefined)
            expect(typeof out === 'object' && out !== null && !Array.isArray(out)).toBe(true);
        },
      ),
    );
    expect(decodePayload(utf8('[1]'))).toBeUndefined();
    expect(decodePayload(utf8('null'))).toBeUndefined();
    expect(decodePayload(Uint8Array.of(0x7b, 0xc3, 0x7d))).toBeUndefined();
    expect(decodePayload(utf8('{"__proto__":{"x":1}}'))).toEqual(JSON.parse('{"__proto__":{"x":1}}'));
  });

  it('agrees with a strict TextDecoder + JSON.parse reference on arbitrary bytes', () => {
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const reference = (bytes: Uint8Array): unknown => {
      try {
        const v: unknown = JSON.parse(strict.decode(bytes));
        return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
      } catch {
        return undefined;
      }
    };
    const jsonish = fc
      .tuple(fc.dictionary(fc.string(), fc.jsonValue()), fc.uint8Array({ maxLength: 3 }), fc.nat())
      .map(([obj, junk, at]) => {
        const b = Array.from(utf8(JSON.stringify(obj)));
        b.splice(at % (b.length + 1), 0, ...junk);
        return Uint8Array.from(b);
      });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array(), jsonish), (bytes) => {
        expect(decodePayload(bytes)).toEqual(reference(bytes));
      }),
      { numRuns: 500 },
    );
    expect(decodePayload(utf8('\uFEFF{"a":1}'))).toBeUndefined();
    expect(decodePayload(utf8('{"a":"\uFFFD"}'))).toEqual({ a: '\uFFFD' });
  });

  it('refuses non-objects and unserialisable values with a ValidationError', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    for (const bad of [null, [], 'text', 3, cyclic, { n: 1n }]) {
      let err: unknown;
      try {
        encodePayload(bad);
      } catch (e) {
        err = e;
      }
      expect(isValidationError(err)).toBe(true);
    }
  });
});
