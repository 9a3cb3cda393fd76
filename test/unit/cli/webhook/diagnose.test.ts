import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from '../../../../packages/sdk/src/webhook/index.js';
import { diagnoseDelivery } from '../../../../packages/dev/src/cli/webhook/diagnose.js';
import { defaultDeliveryBody } from '../../../../packages/dev/src/cli/commands/webhook-sign.js';

const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==';
const OLD_SECRET = 'b2xkLW9sZC1vbGQtb2xkLW9sZC1vbGQtb2xkLW9sZC1vbGQ=';
const TS = 1_767_225_600;
const NOW = TS * 1000 + 5000;
const ID = '019b7a1c-3e00-7c4d-9a2b-5f1e2d3c4b5a';
const BODY = defaultDeliveryBody('message.new', TS * 1000);

async function signed(body = BODY, secret = SECRET): Promise<[string, string][]> {
  const { headers } = await signWebhook({ secret, timestamp: TS, deliveryId: ID, body, agentId: 'agent-1' });
  return Object.entries(headers);
}

function request(headers: [string, string][], body: string | Uint8Array = BODY, notes: string[] = []) {
  return { headers, body: typeof body === 'string' ? new TextEncoder().encode(body) : body, notes };
}

const without = (hs: [string, string][], ...names: string[]) => hs.filter(([n]) => !names.includes(n));
const replaced = (hs: [string, string][], name: string, value: string) =>
  hs.map(([n, v]): [string, string] => [n, n === name ? value : v]);

describe('diagnoseDelivery', () => {
  it('accepts a correctly signed delivery, as verifyWebhook does', async () => {
    const headers = await signed();
    const d = await diagnoseDelivery({ request: request(headers), secrets: [SECRET], nowMs: NOW });
    expect(d).toMatchObject({
      valid: true,
      problems: [],
      receiverAnswer: { status: 200 },
      secretIndex: 0,
      skewSeconds: 5,
      deliveryId: ID,
      eventType: 'message.new',
    });
    await expect(
      verifyWebhook({ body: BODY, headers: Object.fromEntries(headers), secret: SECRET, receivedAtMs: NOW }),
    ).resolves.toMatchObject({ deliveryId: ID });
  });

  it('says which of several secrets matched, and notes an older one', async () => {
    const d = await diagnoseDelivery({
      request: request(await signed(BODY, OLD_SECRET)),
      secrets: [SECRET, OLD_SECRET],
      nowMs: NOW,
    });
    expect(d.valid).toBe(true);
    expect(d.secretIndex).toBe(1);
    expect(d.notes).toContain(
      'the signature matches secret #2, not the first: the sender still signs with an older secret',
    );
  });

  it('names every missing header', async () => {
    const headers = without(await signed(), 'x-service-signature', 'x-service-delivery-id');
    const d = await diagnoseDelivery({ request: request(headers), secrets: [SECRET], nowMs: NOW });
    expect(d.valid).toBe(false);
    expect(d.receiverAnswer).toEqual({ status: 400, code: 'WEBHOOK_HEADER_MISSING' });
    expect(d.problems).toEqual([
      {
        code: 'WEBHOOK_HEADER_MISSING',
        message: 'missing headers: X-Service-Signature, X-Service-Delivery-Id',
        details: { missing: ['X-Service-Signature', 'X-Service-Delivery-Id'] },
      },
    ]);
  });

  it('reports a malformed delivery id', async () => {
    const headers = replaced(await signed(), 'x-service-delivery-id', 'a.b');
    const d = await diagnoseDelivery({ request: request(headers), secrets: [SECRET], nowMs: NOW });
    expect(d.problems.map((p) => p.message)).toEqual([
      'X-Service-Delivery-Id is malformed: expected 1–128 of A–Z a–z 0–9 - _ (a UUID)',
    ]);
  });

  it.each([
    [
      TS * 1000 + 301_000,
      'timestamp is 301 s in the past (more than the 300 s tolerance; now is 2026-01-01T00:05:01.000Z)',
      'past',
    ],
    [
      TS * 1000 - 400_500,
      'timestamp is 400.5 s in the future (more than the 300 s tolerance; now is 2025-12-31T23:53:19.500Z)',
      'future',
    ],
  ])('measures timestamp skew and its direction (now %i)', async (nowMs, message, direction) => {
    const d = await diagnoseDelivery({ request: request(await signed()), secrets: [SECRET], nowMs });
    expect(d.receiverAnswer).toEqual({ status: 400, code: 'WEBHOOK_TIMESTAMP_SKEW' });
    expect(d.problems).toHaveLength(1);
    expect(d.problems[0]).toMatchObject({ code: 'WEBHOOK_TIMESTAMP_SKEW', message, details: { direction } });
    expect(d.secretIndex).toBe(0); // the signature itself is fine
  });

  it('accepts exactly 300 s of skew, as the receiver does', async () => {
    const d = await diagnoseDelivery({
      request: request(await signed()),
      secrets: [SECRET],
      nowMs: TS * 1000 + 300_000,
    });
    expect(d.valid).toBe(true);
  });

  it('reports a timestamp that is not Unix seconds', async () => {
    const headers = replaced(await signed(), 'x-service-timestamp', '2026-01-01T00:00:00Z');
    const d = await diagnoseDelivery({ request: request(headers), secrets: [SECRET], nowMs: NOW });
    expect(d.problems[0]!.message).toBe('X-Service-Timestamp is not Unix seconds (1 to 12 digits)');
    expect(d.timestamp).toBeUndefined();
  });

  it.each([
    ['abc', 'X-Service-Signature is not 64 hex characters (it has 3 characters)'],
    ['z'.repeat(64), 'X-Service-Signature is not 64 hex characters (it has 64 characters, some not hex)'],
  ])('reports a malformed signature %s', async (sig, message) => {
    const headers = replaced(await signed(), 'x-service-signature', sig);
    const d = await diagnoseDelivery({ request: request(headers), secrets: [SECRET], nowMs: NOW });
    expect(d.receiverAnswer).toEqual({ status: 401, code: 'WEBHOOK_SIGNATURE_INVALID' });
    expect(d.problems.map((p) => p.message)).toEqual([message]);
  });

  it('points at a "sha256=" prefix', async () => {
    const headers = await signed();
    const sig = headers.find(([n]) => n === 'x-service-signature')![1];
    const d = await diagnoseDelivery({
      request: request(replaced(headers, 'x-service-signature', `sha256=${sig}`)),
      secrets: [SECRET],
      nowMs: NOW,
    });
    expect(d.problems[0]!.hint).toBe('drop the "sha256=" prefix: the service sends bare hex');
  });

  it('accepts an upper-case signature', async () => {
    const headers = await signed();
    const sig = headers.find(([n]) => n === 'x-service-signature')![1];
    const d = await diagnoseDelivery({
      request: request(replaced(headers, 'x-service-signature', sig.toUpperCase())),
      secrets: [SECRET],
      nowMs: NOW,
    });
    expect(d.valid).toBe(true);
  });

  it('says honestly that a mismatch is a wrong secret or an altered body', async () => {
    const one = await diagnoseDelivery({
      request: request(await signed()),
      secrets: [OLD_SECRET],
      nowMs: NOW,
    });
    expect(one.problems).toEqual([
      {
        code: 'WEBHOOK_SIGNATURE_INVALID',
        message:
          'signature does not match this body under this secret: wrong secret or altered body (the two cannot be told apart cryptographically)',
        details: { secrets_tried: 1 },
      },
    ]);
    const altered = BODY.replace('message.new', 'relation.established');
    const two = await diagnoseDelivery({
      request: request(await signed(), altered),
      secrets: [SECRET, OLD_SECRET],
      nowMs: NOW,
    });
    expect(two.problems[0]!.message).toMatch(
      /^signature does not match this body under any of the 2 secrets: wrong secrets or altered body/,
    );
    expect(two.problems[0]!.hint).toBeUndefined();
  });

  it.each([
    ['a trailing newline', `${BODY}\n`, 'the trailing line break is removed'],
    ['pretty-printed JSON', JSON.stringify(JSON.parse(BODY), null, 2), 'the JSON is re-serialised compactly'],
  ])('names a typical alteration that explains the mismatch: %s', async (_, body, what) => {
    const d = await diagnoseDelivery({
      request: request(await signed(), body),
      secrets: [SECRET],
      nowMs: NOW,
    });
    expect(d.valid).toBe(false);
    expect(d.problems[0]!.hint).toBe(
      `it matches the secret when ${what}: the body was changed after signing (by a proxy, a framework or the capture)`,
    );
  });

  it('finds line-end conversions and extra bytes past Content-Length', async () => {
    const multi = '{"type":"message.new",\n"version":"v1"}';
    const crlf = await diagnoseDelivery({
      request: request(await signed(multi), multi.replace('\n', '\r\n')),
      secrets: [SECRET],
      nowMs: NOW,
    });
    expect(crlf.problems.find((p) => p.code === 'WEBHOOK_SIGNATURE_INVALID')!.hint).toMatch(
      /CRLF line ends become LF/,
    );
    const headers = [...(await signed()), ['Content-Length', String(BODY.length)] as [string, string]];
    const extra = await diagnoseDelivery({
      request: request(headers, `${BODY}  `),
      secrets: [SECRET],
      nowMs: NOW,
    });
    expect(extra.problems[0]!.hint).toMatch(/the body is cut to its Content-Length \(\d+ bytes\)/);
  });

  it('reports an invalid body even when the signature matches', async () => {
    const body = '{"type":"message.new","version":"v2"}';
    const d = await diagnoseDelivery({
      request: request(await signed(body), body),
      secrets: [SECRET],
      nowMs: NOW,
    });
    expect(d.receiverAnswer).toEqual({ status: 400, code: 'WEBHOOK_PAYLOAD_INVALID' });
    expect(d.problems).toEqual([
      { code: 'WEBHOOK_PAYLOAD_INVALID', message: 'body is not a valid delivery: version must be "v1".' },
    ]);
    expect(d.secretIndex).toBe(0);
  });

  it('reports a body over 1 MB', async () => {
    const body = new Uint8Array(1_048_577).fill(0x20);
    const d = await diagnoseDelivery({
      request: request(await signed(' '), body),
      secrets: [SECRET],
      nowMs: NOW,
    });
    expect(d.receiverAnswer).toEqual({ status: 413, code: 'WEBHOOK_PAYLOAD_TOO_LARGE' });
    expect(d.problems.map((p) => p.code)).toContain('WEBHOOK_PAYLOAD_TOO_LARGE');
  });

  it('lists several problems at once, and keeps capture notes', async () => {
    const headers = replaced(without(await signed(), 'x-service-delivery-id'), 'x-service-signature', 'nope');
    const d = await diagnoseDelivery({
      request: request(headers, BODY, ['a note']),
      secrets: [SECRET],
      nowMs: NOW + 10_000_000,
    });
    expect(d.problems.map((p) => p.code)).toEqual([
      'WEBHOOK_HEADER_MISSING',
      'WEBHOOK_TIMESTAMP_SKEW',
      'WEBHOOK_SIGNATURE_INVALID',
    ]);
    expect(d.notes).toEqual(['a note']);
  });

  it('refuses a short secret with a ConfigurationError that does not quote it', async () => {
    await expect(
      diagnoseDelivery({ request: request(await signed()), secrets: ['short-secret'], nowMs: NOW }),
    ).rejects.toSatisfy(
      (err: Error) => err.name === 'ConfigurationError' && !err.message.includes('short-secret'),
    );
  });
});
