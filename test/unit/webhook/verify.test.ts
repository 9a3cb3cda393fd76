import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import {
  isConfigurationError,
  isWebhookVerificationError,
} from '../../../packages/sdk/src/core/errors/guards.js';
import {
  createWebhookVerifier,
  verifyWebhook,
  type WebhookVerifier,
} from '../../../packages/sdk/src/webhook/index.js';
import {
  FIXTURES,
  ROTATED_SECRET,
  SECRET,
  T0_MS,
  vector,
  vectorHeaders,
} from '../../fixtures/webhook/deliveries.js';

async function rejection(p: Promise<unknown>): Promise<{ code: string; status: number }> {
  try {
    await p;
  } catch (err) {
    if (!isWebhookVerificationError(err)) throw err;
    return { code: err.code, status: err.status };
  }
  throw new Error('expected a rejection');
}

const msg = vector('message-new');
const backends = ['node', 'web'] as const;

describe.each(backends)('verifier (%s backend)', (backend) => {
  const make = (at = T0_MS, secret: string | string[] = SECRET): WebhookVerifier =>
    createWebhookVerifier({ secret, clock: new ManualClock(at), crypto: backend });

  it('accepts every openssl-signed fixture with its secret', async () => {
    for (const v of FIXTURES.vectors.filter((x) => x.name !== 'invalid-body')) {
      const verified = await make(T0_MS, [SECRET, ROTATED_SECRET]).verify({
        body: v.body,
        headers: vectorHeaders(v),
      });
      expect(verified.deliveryId).toBe(v.delivery_id);
      expect(verified.timestamp).toBe(v.timestamp);
      expect(new TextDecoder().decode(verified.body)).toBe(v.body);
    }
  });

  it('accepts a timestamp exactly 300 s away in either direction and refuses 301 s', async () => {
    const headers = vectorHeaders(msg);
    await expect(make(T0_MS + 300_000).verify({ body: msg.body, headers })).resolves.toBeDefined();
    await expect(make(T0_MS - 300_000).verify({ body: msg.body, headers })).resolves.toBeDefined();
    expect(await rejection(make(T0_MS + 301_000).verify({ body: msg.body, headers }))).toEqual({
      code: 'WEBHOOK_TIMESTAMP_SKEW',
      status: 400,
    });
    expect(await rejection(make(T0_MS - 301_000).verify({ body: msg.body, headers }))).toEqual({
      code: 'WEBHOOK_TIMESTAMP_SKEW',
      status: 400,
    });
  });

  it('takes the receipt time from the input over the clock', async () => {
    const v = make(0);
    const headers = vectorHeaders(msg);
    await expect(v.verify({ body: msg.body, headers, receivedAtMs: T0_MS + 299_999 })).resolves.toBeDefined();
    expect((await rejection(v.verify({ body: msg.body, headers }))).code).toBe('WEBHOOK_TIMESTAMP_SKEW');
  });

  it.each(['x-service-signature', 'x-service-timestamp', 'x-service-delivery-id'])(
    'refuses a delivery without %s (400 WEBHOOK_HEADER_MISSING)',
    async (name) => {
      const headers = vectorHeaders(msg);
      delete headers[name];
      expect(await rejection(make().verify({ body: msg.body, headers }))).toEqual({
        code: 'WEBHOOK_HEADER_MISSING',
        status: 400,
      });
      headers[name] = '';
      expect((await rejection(make().verify({ body: msg.body, headers }))).code).toBe(
        'WEBHOOK_HEADER_MISSING',
      );
    },
  );

  it('reads headers in any case, from plain objects and fetch Headers', async () => {
    const upper = Object.fromEntries(
      Object.entries(vectorHeaders(msg)).map(([k, v]) => [k.toUpperCase(), v]),
    );
    await expect(make().verify({ body: msg.body, headers: upper })).resolves.toBeDefined();
    await expect(
      make().verify({ body: msg.body, headers: new Headers(vectorHeaders(msg)) }),
    ).resolves.toBeDefined();
    const arrays = Object.fromEntries(Object.entries(vectorHeaders(msg)).map(([k, v]) => [k, [v]]));
    await expect(make().verify({ body: msg.body, headers: arrays })).resolves.toBeDefined();
  });

  it('accepts upper- and lower-case hex signatures', async () => {
    for (const sig of [msg.signature.toLowerCase(), msg.signature.toUpperCase()]) {
      const headers = { ...vectorHeaders(msg), 'x-service-signature': sig };
      await expect(make().verify({ body: msg.body, headers })).resolves.toBeDefined();
    }
  });

  it.each([
    ['too short', (s: string) => s.slice(0, 63)],
    ['too long', (s: string) => s + '0'],
    ['not hex', (s: string) => 'g' + s.slice(1)],
    ['sha256= prefix', (s: string) => 'sha256=' + s],
    ['one digit changed', (s: string) => (s[0] === '0' ? '1' : '0') + s.slice(1)],
  ])('refuses a signature that is %s (401)', async (_name, mutate) => {
    const headers = { ...vectorHeaders(msg), 'x-service-signature': mutate(msg.signature) };
    expect(await rejection(make().verify({ body: msg.body, headers }))).toEqual({
      code: 'WEBHOOK_SIGNATURE_INVALID',
      status: 401,
    });
  });

  it('refuses the wrong secret and reports which rotated secret matched', async () => {
    const rotated = vector('rotated-secret');
    expect(
      (await rejection(make().verify({ body: rotated.body, headers: vectorHeaders(rotated) }))).status,
    ).toBe(401);
    const both = make(T0_MS, [SECRET, ROTATED_SECRET]);
    expect((await both.verify({ body: rotated.body, headers: vectorHeaders(rotated) })).secretIndex).toBe(1);
    expect((await both.verify({ body: msg.body, headers: vectorHeaders(msg) })).secretIndex).toBe(0);
  });

  it('refuses the body with any single byte changed', async () => {
    const bytes = new TextEncoder().encode(msg.body);
    const v = make();
    for (let i = 0; i < bytes.length; i++) {
      const copy = bytes.slice();
      copy[i] = copy[i]! ^ 0x01;
      expect((await rejection(v.verify({ body: copy, headers: vectorHeaders(msg) }))).code).toBe(
        'WEBHOOK_SIGNATURE_INVALID',
      );
    }
  });

  it('refuses a changed timestamp or delivery id even inside the window', async () => {
    const headers = { ...vectorHeaders(msg), 'x-service-timestamp': String(msg.timestamp + 1) };
    expect((await rejection(make().verify({ body: msg.body, headers }))).code).toBe(
      'WEBHOOK_SIGNATURE_INVALID',
    );
    const other = { ...vectorHeaders(msg), 'x-service-delivery-id': '01943a6f-8c00-7000-8000-000000000009' };
    expect((await rejection(make().verify({ body: msg.body, headers: other }))).code).toBe(
      'WEBHOOK_SIGNATURE_INVALID',
    );
  });

  it('parses the body only after the signature passed', async () => {
    const invalid = vector('invalid-body');
    expect(await rejection(make().verify({ body: invalid.body, headers: vectorHeaders(invalid) }))).toEqual({
      code: 'WEBHOOK_PAYLOAD_INVALID',
      status: 400,
    });
    const forged = { ...vectorHeaders(invalid), 'x-service-signature': msg.signature };
    expect((await rejection(make().verify({ body: invalid.body, headers: forged }))).code).toBe(
      'WEBHOOK_SIGNATURE_INVALID',
    );
    // verifySignature does not look at the body at all.
    await expect(
      make().verifySignature({ body: invalid.body, headers: vectorHeaders(invalid) }),
    ).resolves.toMatchObject({
      deliveryId: invalid.delivery_id,
    });
  });

  it('checks in order: size, headers, timestamp, signature', async () => {
    const late = make(T0_MS + 10 * 60_000);
    const noSig = { ...vectorHeaders(msg), 'x-service-signature': '' };
    expect((await rejection(late.verify({ body: msg.body, headers: noSig }))).code).toBe(
      'WEBHOOK_HEADER_MISSING',
    );
    const badSig = { ...vectorHeaders(msg), 'x-service-signature': 'zz' };
    expect((await rejection(late.verify({ body: msg.body, headers: badSig }))).code).toBe(
      'WEBHOOK_TIMESTAMP_SKEW',
    );
    const big = new Uint8Array(1_048_577);
    expect(await rejection(make().verify({ body: big, headers: {} }))).toEqual({
      code: 'WEBHOOK_PAYLOAD_TOO_LARGE',
      status: 413,
    });
  });

  it.each(['17672256OO', '-1767225600', '1767225600.5', ' 1767225600', '1e9'])(
    'refuses a malformed timestamp %j as skew',
    async (ts) => {
      const headers = { ...vectorHeaders(msg), 'x-service-timestamp': ts };
      expect((await rejection(make().verify({ body: msg.body, headers }))).code).toBe(
        'WEBHOOK_TIMESTAMP_SKEW',
      );
    },
  );

  it.each(['a.b', 'id with space', 'x'.repeat(129), 'é'])(
    'refuses a malformed delivery id %j',
    async (id) => {
      const headers = { ...vectorHeaders(msg), 'x-service-delivery-id': id };
      expect(await rejection(make().verify({ body: msg.body, headers }))).toEqual({
        code: 'WEBHOOK_HEADER_MISSING',
        status: 400,
      });
    },
  );

  it('verifies synchronously exactly on node:crypto, with the same answers as verify()', async () => {
    const v = make(T0_MS, [SECRET, ROTATED_SECRET]);
    expect(v.synchronous).toBe(backend === 'node');
    const input = { body: msg.body, headers: vectorHeaders(msg) };
    const bad = { body: msg.body + ' ', headers: vectorHeaders(msg) };
    if (backend === 'web') {
      expect(() => v.verifySync(input)).toThrow(expect.objectContaining({ code: 'CONFIGURATION_ERROR' }));
      expect(() => v.verifySignatureSync(input)).toThrow(/node:crypto/);
      return;
    }
    expect(v.verifySync(input)).toEqual(await v.verify(input));
    expect(v.verifySignatureSync(input)).toEqual(await v.verifySignature(input));
    expect(() => v.verifySync(bad)).toThrow(expect.objectContaining({ code: 'WEBHOOK_SIGNATURE_INVALID' }));
    expect(await rejection(v.verify(bad))).toEqual({ code: 'WEBHOOK_SIGNATURE_INVALID', status: 401 });
  });

  it('reports the agent id header and accepts ArrayBuffer bodies', async () => {
    const headers = { ...vectorHeaders(msg), 'X-Service-Agent-Id': 'agent_7' };
    const body = new TextEncoder().encode(msg.body).buffer;
    const verified = await make().verify({ body, headers });
    expect(verified.agentId).toBe('agent_7');
    expect(verified.delivery.metadata.sender_id).toBe('user_1');
  });
});

describe('verifier configuration', () => {
  it.each([
    ['a short secret', 'x'.repeat(31)],
    ['leading whitespace', ' ' + 'x'.repeat(40)],
    ['trailing newline', 'x'.repeat(40) + '\n'],
    ['no secrets', []],
    ['a non-string secret', [42 as unknown as string]],
  ])('refuses %s with a ConfigurationError that does not echo it', (_name, secret) => {
    let caught: unknown;
    try {
      createWebhookVerifier({ secret });
    } catch (err) {
      caught = err;
    }
    expect(isConfigurationError(caught)).toBe(true);
    const message = (caught as Error).message;
    expect(message).toContain('secret');
    if (typeof secret === 'string') expect(message).not.toContain(secret.trim());
  });

  it('counts secret length in UTF-8 bytes', () => {
    expect(() => createWebhookVerifier({ secret: 'é'.repeat(16) })).not.toThrow();
    expect(() => createWebhookVerifier({ secret: 'é'.repeat(15) + 'x' })).toThrow(/31 bytes/);
  });

  it.each([-1, 300_001, Number.NaN])('refuses toleranceMs %d', (toleranceMs) => {
    expect(() => createWebhookVerifier({ secret: SECRET, toleranceMs })).toThrow(/toleranceMs/);
  });

  it('applies a lower tolerance', async () => {
    const v = createWebhookVerifier({
      secret: SECRET,
      toleranceMs: 10_000,
      clock: new ManualClock(T0_MS + 11_000),
    });
    expect((await rejection(v.verify({ body: msg.body, headers: vectorHeaders(msg) }))).code).toBe(
      'WEBHOOK_TIMESTAMP_SKEW',
    );
  });

  it('verifyWebhook verifies with one or several secrets', async () => {
    const rotated = vector('rotated-secret');
    const result = await verifyWebhook({
      body: rotated.body,
      headers: vectorHeaders(rotated),
      secret: [SECRET, ROTATED_SECRET],
      receivedAtMs: T0_MS,
    });
    expect(result.secretIndex).toBe(1);
    const again = await verifyWebhook({
      body: msg.body,
      headers: vectorHeaders(msg),
      secret: SECRET,
      receivedAtMs: T0_MS,
    });
    expect(again.delivery.type).toBe('message.new');
    expect(
      (
        await rejection(
          verifyWebhook({
            body: msg.body,
            headers: vectorHeaders(msg),
            secret: ROTATED_SECRET,
            receivedAtMs: T0_MS,
          }),
        )
      ).status,
    ).toBe(401);
  });
});
