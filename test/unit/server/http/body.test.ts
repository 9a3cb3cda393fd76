import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeJsonBody } from '../../../../packages/dev/src/server/http/body.js';
import { isServerFailure } from '../../../../packages/dev/src/server/http/failure.js';
import type { ServerRequest } from '../../../../packages/dev/src/server/http/types.js';

const req = (body: Uint8Array, contentType?: string, tooLarge = false): ServerRequest => ({
  method: 'POST',
  path: '/x',
  query: new URLSearchParams(),
  headers: contentType === undefined ? {} : { 'content-type': contentType },
  body,
  bodyTooLarge: tooLarge,
});
const enc = (s: string) => new TextEncoder().encode(s);

function reasonOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    if (isServerFailure(err)) return err.params['reason'];
    throw err;
  }
  return undefined;
}

describe('decodeJsonBody', () => {
  it('returns "absent" for an empty body, whatever the content type', () => {
    expect(decodeJsonBody(req(new Uint8Array()), 100)).toEqual({ present: false });
  });

  it('accepts application/json with parameters, case-insensitively', () => {
    for (const type of [
      'application/json',
      'Application/JSON; charset=utf-8',
      'application/json ;charset=UTF-8',
    ]) {
      expect(decodeJsonBody(req(enc('{"a":1}'), type), 100)).toEqual({ present: true, value: { a: 1 } });
    }
  });

  it('names why a body is refused', () => {
    expect(reasonOf(() => decodeJsonBody(req(enc('{}'), 'application/json', true), 100))).toBe(
      'body_too_large',
    );
    expect(reasonOf(() => decodeJsonBody(req(enc('x'.repeat(101)), 'application/json'), 100))).toBe(
      'body_too_large',
    );
    expect(reasonOf(() => decodeJsonBody(req(enc('{}'), 'text/json'), 100))).toBe('unsupported_content_type');
    expect(reasonOf(() => decodeJsonBody(req(enc('{}'), 'application/jsonx'), 100))).toBe(
      'unsupported_content_type',
    );
    expect(reasonOf(() => decodeJsonBody(req(enc('{}')), 100))).toBe('unsupported_content_type');
    expect(reasonOf(() => decodeJsonBody(req(Uint8Array.of(0xc3), 'application/json'), 100))).toBe(
      'invalid_utf8',
    );
    expect(reasonOf(() => decodeJsonBody(req(enc('{'), 'application/json'), 100))).toBe('malformed_json');
  });

  it('round-trips any JSON value (fast-check)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const decoded = decodeJsonBody(req(enc(text), 'application/json'), 1 << 20);
        expect(decoded).toEqual({ present: true, value: JSON.parse(text) });
      }),
    );
  });

  it('throws only VALIDATION_ERROR failures on arbitrary bytes (fast-check)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          decodeJsonBody(req(bytes, 'application/json'), 200);
        } catch (err) {
          expect(isServerFailure(err) && err.code === 'VALIDATION_ERROR').toBe(true);
        }
      }),
    );
  });
});
