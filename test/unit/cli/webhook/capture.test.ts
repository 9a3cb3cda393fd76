import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../packages/dev/src/cli/args.js';
import {
  canonicalHeaderName,
  formatHttpCapture,
  formatJsonCapture,
  headerOf,
  headerRecord,
  parseCapture,
} from '../../../../packages/dev/src/cli/webhook/capture.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const url = new URL('http://127.0.0.1:3000/hook?x=1');

const headerName = fc
  .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/)
  .filter((n) => !['host', 'content-length'].includes(n.toLowerCase()));
const headerValue = fc.stringMatching(/^[!-~]([ !-~]{0,30}[!-~])?$/);
const headers = fc.uniqueArray(fc.tuple(headerName, headerValue), {
  selector: ([n]) => n.toLowerCase(),
  maxLength: 6,
});

describe('parseCapture: HTTP/1.1 text', () => {
  it('reads the request line, headers (any case) and the exact body after the blank line', () => {
    const req = parseCapture(
      enc('POST /hook HTTP/1.1\r\nX-Service-Timestamp: 17\r\nx-a:  b \r\n\r\n{"a":\r\n\r\n1}'),
    );
    expect(req).toMatchObject({ format: 'http', method: 'POST', target: '/hook', notes: [] });
    expect(headerOf(req, 'x-service-timestamp')).toBe('17');
    expect(headerOf(req, 'X-A')).toBe('b');
    expect(new TextDecoder().decode(req.body)).toBe('{"a":\r\n\r\n1}');
  });

  it('accepts LF line ends and a capture without request line; joins repeated headers', () => {
    expect(headerOf(parseCapture(enc('A: 1\r\n\nbody')), 'a')).toBe('1');
    const req = parseCapture(enc('\nA: 1\nA: 2\n\nbody'));
    expect(req.method).toBeUndefined();
    expect(headerRecord(req)).toEqual({ a: '1, 2' });
    expect(new TextDecoder().decode(req.body)).toBe('body');
  });

  it("drops an editor's final newline past Content-Length and reports other length differences", () => {
    const trimmed = parseCapture(enc('Content-Length: 2\n\n{}\n'));
    expect(new TextDecoder().decode(trimmed.body)).toBe('{}');
    expect(trimmed.notes[0]).toMatch(/dropped 1 line-break byte/);
    const longer = parseCapture(enc('Content-Length: 2\n\n{} '));
    expect(longer.body).toHaveLength(3);
    expect(longer.notes[0]).toBe('Content-Length says 2 bytes but the captured body has 3');
  });

  it.each([
    ['', /empty input/],
    ['  \n', /empty input/],
    ['POST / HTTP/1.1\n\nbody', /no headers found/],
    ['A: 1\nnot a header\n\nx', /line 2 is neither/],
    ['POST / HTTP/1.1\nA: 1\n bad fold\n\n', /line 3 is neither/],
  ])('refuses %j', (text, message) => {
    expect(() => parseCapture(enc(text))).toThrow(message);
  });

  it('round-trips what formatHttpCapture writes, for any headers and body bytes', () => {
    fc.assert(
      fc.property(headers, fc.uint8Array({ maxLength: 200 }), (hs, body) => {
        const req = parseCapture(
          formatHttpCapture({ method: 'POST', url, headers: Object.fromEntries(hs), body }),
        );
        expect(req.target).toBe('/hook?x=1');
        expect(req.body).toEqual(body);
        expect(req.notes).toEqual([]);
        for (const [n, v] of hs) expect(headerOf(req, n)).toBe(v);
        expect(headerOf(req, 'host')).toBe('127.0.0.1:3000');
      }),
    );
  });
});

describe('parseCapture: JSON', () => {
  it('reads headers (strings, numbers, arrays) and body or body_base64', () => {
    const req = parseCapture(
      enc(JSON.stringify({ headers: { A: 'x', B: 3, C: ['1', '2'] }, body: '{"k":1}' })),
    );
    expect(headerRecord(req)).toEqual({ a: 'x', b: '3', c: '1, 2' });
    expect(new TextDecoder().decode(req.body)).toBe('{"k":1}');
    const bin = parseCapture(
      enc(JSON.stringify({ headers: {}, body_base64: Buffer.from([0xff, 0]).toString('base64') })),
    );
    expect([...bin.body]).toEqual([0xff, 0]);
  });

  it.each([
    ['{', /not valid JSON/],
    ['{"body":"x"}', /needs "headers"/],
    ['{"headers":{}}', /exactly one of "body" and "body_base64"/],
    ['{"headers":{},"body":"x","body_base64":"eA=="}', /exactly one/],
    ['{"headers":{},"body_base64":"!!"}', /not base64/],
    ['{"headers":{"bad name":"x"},"body":""}', /not a header name/],
  ])('refuses %s', (text, message) => {
    expect(() => parseCapture(enc(text))).toThrow(message);
  });

  it('round-trips what formatJsonCapture writes, for any headers and body bytes', () => {
    fc.assert(
      fc.property(headers, fc.oneof(fc.uint8Array({ maxLength: 100 }), fc.string().map(enc)), (hs, body) => {
        const req = parseCapture(
          enc(formatJsonCapture({ method: 'POST', url, headers: Object.fromEntries(hs), body })),
        );
        expect(req.format).toBe('json');
        expect(req.body).toEqual(body);
        for (const [n, v] of hs) expect(headerOf(req, n)).toBe(v);
        expect(headerOf(req, 'content-length')).toBe(String(body.length));
      }),
    );
  });
});

describe('parseCapture on arbitrary input', () => {
  it('returns a capture or throws a UsageError, nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string().map(enc), fc.json().map(enc)),
        (bytes) => {
          try {
            const req = parseCapture(bytes);
            expect(req.headers.length + req.body.length).toBeGreaterThanOrEqual(0);
          } catch (err) {
            expect(err).toBeInstanceOf(UsageError);
          }
        },
      ),
    );
  });
});

describe('canonicalHeaderName', () => {
  it('capitalises each dash-separated word', () => {
    expect(canonicalHeaderName('x-service-delivery-id')).toBe('X-Service-Delivery-Id');
    expect(canonicalHeaderName('CONTENT-TYPE')).toBe('Content-Type');
  });
});
