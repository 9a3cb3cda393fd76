import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { curlLine, shellQuote } from '../../../packages/dev/src/console/api.js';
import { systemEventBody } from '../../../packages/dev/src/console/control-actions.js';

describe('systemEventBody', () => {
  it('builds the control API body, with the open conversation when there is one', () => {
    expect(systemEventBody({ type: ' system.notice ', payload: '{"a":1}' }, 'conv-1')).toEqual({
      type: 'system.notice',
      payload: { a: 1 },
      conversation_id: 'conv-1',
    });
    expect(systemEventBody({ type: 'x', payload: '  ' }, undefined)).toEqual({ type: 'x', payload: {} });
  });

  it.each([
    [{ type: '', payload: '{}' }, /1 to 100 characters/],
    [{ type: 'x'.repeat(101), payload: '{}' }, /1 to 100 characters/],
    [{ type: 'x', payload: '{oops' }, /not JSON/],
    [{ type: 'x', payload: '[]' }, /must be a JSON object/],
    [{ type: 'x', payload: 'null' }, /must be a JSON object/],
    [{ type: 'x', payload: '"text"' }, /must be a JSON object/],
  ])('refuses %j with a clear message', (input, message) => {
    expect(() => systemEventBody(input, undefined)).toThrow(message);
  });

  it('either builds a body whose payload is an object or throws an Error, for any text', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (type, payload) => {
        let body: Readonly<Record<string, unknown>> | undefined;
        try {
          body = systemEventBody({ type, payload }, undefined);
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          return;
        }
        expect(typeof body['payload']).toBe('object');
        expect(Array.isArray(body['payload'])).toBe(false);
      }),
    );
  });
});

describe('curl lines', () => {
  it('shows the token as a variable and quotes the body for the shell', () => {
    const line = curlLine('http://127.0.0.1:1', {
      method: 'POST',
      path: '/x',
      auth: true,
      body: { text: "it's" },
    });
    expect(line).toBe(
      `curl -sS -X POST 'http://127.0.0.1:1/x' -H "authorization: Bearer $AMS_ACCESS_TOKEN" -H 'content-type: application/json' -d '{"text":"it'\\''s"}'`,
    );
  });

  it('never shows a password, token or secret of the body (issue #28: New dev user showed the password)', () => {
    const body = {
      email: 'dev@console.test',
      account_password: 'hunter2-hunter2',
      nested: { protection_password: 'p', webhook_secret: 's', refresh_token: 't' },
      display_name: 'Dev',
    };
    const line = curlLine('http://127.0.0.1:1', { method: 'POST', path: '/_control/users', body });
    for (const secret of ['hunter2-hunter2', '"p"', '"s"', '"t"']) expect(line).not.toContain(secret);
    expect(line).toContain('"email":"dev@console.test","account_password":"…"');
    expect(line).toContain('"protection_password":"…","webhook_secret":"…","refresh_token":"…"');
  });

  it('shellQuote gives back the exact text through a real shell, whatever it holds', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }).filter((s) => !s.includes('\0')),
        (text) => {
          const echoed = execFileSync('/bin/sh', ['-c', `printf '%s' ${shellQuote(text)}`], {
            encoding: 'utf8',
          });
          expect(echoed).toBe(text);
        },
      ),
      { numRuns: 60 },
    );
  });
});
