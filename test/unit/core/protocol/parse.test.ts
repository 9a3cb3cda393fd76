import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isValidationError, ValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  parseDeliveryLogEntry,
  parseDeliveryLogList,
  parseDeviceList,
  parseEventPayload,
  parseJson,
  parseKeyBackupRecord,
  parseMessagePayload,
  parseRecoverConnectionResult,
  parseWebhookDeliveryBody,
  parseWith,
  parseWsFrame,
} from '../../../../packages/sdk/src/core/protocol/index.js';
import { marker } from './fixtures.js';

const PARSERS: readonly [string, (input: unknown) => unknown][] = [
  ['parseWebhookDeliveryBody', parseWebhookDeliveryBody],
  ['parseDeliveryLogEntry', parseDeliveryLogEntry],
  ['parseDeliveryLogList', parseDeliveryLogList],
  ['parseKeyBackupRecord', parseKeyBackupRecord],
  ['parseDeviceList', parseDeviceList],
  ['parseRecoverConnectionResult', parseRecoverConnectionResult],
  ['parseMessagePayload', parseMessagePayload],
  ['parseEventPayload(relation.revoked)', (i) => parseEventPayload('relation.revoked', i)],
  ['parseEventPayload(artifact_response)', (i) => parseEventPayload('artifact_response', i)],
  ['parseWsFrame', (i) => parseWsFrame(i as string)],
];

function throwsOnlyValidationError(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(isValidationError(err), String(err)).toBe(true);
    const v = err as ValidationError;
    for (const issue of v.issues) {
      expect(Array.isArray(issue.path)).toBe(true);
      expect(typeof issue.message).toBe('string');
    }
    expect(v.issues.length).toBeLessThanOrEqual(20);
  }
}

describe('every parser throws nothing but ValidationError', () => {
  it.each(PARSERS)('%s over arbitrary values (property)', (_name, parse) => {
    fc.assert(
      fc.property(
        fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true }),
        (v) => throwsOnlyValidationError(() => parse(v)),
      ),
      { numRuns: 300 },
    );
  });

  it.each(PARSERS)('%s over a hostile proxy and throwing getters', (_name, parse) => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        has() {
          throw new Error('boom');
        },
        ownKeys() {
          throw new Error('boom');
        },
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
        getPrototypeOf() {
          throw new Error('boom');
        },
      },
    );
    throwsOnlyValidationError(() => parse(hostile));
    const getter = Object.defineProperty({}, 'type', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    throwsOnlyValidationError(() => parse(getter));
  });

  it('parseWsFrame over arbitrary strings and JSON (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ type: 'auth', ...Object(v) })),
        ),
        (text) => throwsOnlyValidationError(() => parseWsFrame(text)),
      ),
      { numRuns: 500 },
    );
  });
});

describe('issues never carry values', () => {
  it('a failing value never appears in the error (property)', () => {
    const schema = z.strictObject({ a: z.literal('x'), b: z.int(), c: z.enum(['p', 'q']) });
    fc.assert(
      fc.property(marker, marker, marker, (m1, m2, m3) => {
        try {
          parseWith(schema, { a: m1, b: m2, c: m3, [m3]: 1 }, 'thing');
          expect.unreachable();
        } catch (err) {
          expect(isValidationError(err)).toBe(true);
          const json = JSON.stringify({ e: err, issues: (err as ValidationError).issues, m: String(err) });
          expect(json).not.toContain(m1);
          expect(json).not.toContain(m2);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('redacts secret-looking keys that zod quotes in unrecognised-key issues', () => {
    const token = 'hsk_' + 'Ab3'.repeat(13) + 'Z';
    try {
      parseWith(z.strictObject({}), { [token]: 1 }, 'thing');
      expect.unreachable();
    } catch (err) {
      expect(JSON.stringify((err as ValidationError).issues)).not.toContain(token);
      expect((err as ValidationError).message).not.toContain(token);
    }
  });

  it('caps the number of issues at 20', () => {
    const schema = z.array(z.string());
    try {
      parseWith(
        schema,
        Array.from({ length: 100 }, (_, i) => i),
        'list',
      );
      expect.unreachable();
    } catch (err) {
      expect((err as ValidationError).issues).toHaveLength(20);
      expect((err as ValidationError).message).toMatch(/^Invalid list: 0: .* \(and 19 more issue\(s\)\)$/);
    }
  });
});

describe('parseJson', () => {
  it('parses text and UTF-8 bytes', () => {
    expect(parseJson('{"a":[1,"é"]}')).toEqual({ a: [1, 'é'] });
    expect(parseJson(new TextEncoder().encode('{"a":true}'))).toEqual({ a: true });
  });

  it.each([
    ['malformed JSON', '{"a":'],
    ['empty text', ''],
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0x7d])],
    ['a number instead of text', 42 as unknown as string],
  ])('rejects %s with a ValidationError that does not quote the input', (_name, input) => {
    expect(() => parseJson(input, 'body')).toThrow(ValidationError);
    try {
      parseJson(input, 'body');
    } catch (err) {
      expect((err as ValidationError).message).toMatch(/^Invalid body: /);
      expect((err as ValidationError).cause).toBeUndefined();
    }
  });

  it('does not quote a secret inside malformed JSON', () => {
    const secret = 'hsk_' + 'Q'.repeat(40);
    try {
      parseJson(`{"token":"${secret}"`);
      expect.unreachable();
    } catch (err) {
      expect(JSON.stringify(err)).not.toContain(secret);
      expect(String(err)).not.toContain(secret);
    }
  });
});
