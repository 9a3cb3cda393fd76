import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isConfigurationError } from '../../../packages/sdk/src/core/errors/guards.js';
import { createWebhookSigner, signWebhook } from '../../../packages/sdk/src/webhook/index.js';
import { FIXTURES, SECRET } from '../../fixtures/webhook/deliveries.js';

describe('signWebhook', () => {
  it.each(FIXTURES.vectors.map((v) => [v.name, v] as const))(
    'reproduces the openssl vector %s',
    async (_n, v) => {
      for (const crypto of ['node', 'web'] as const) {
        const signed = await signWebhook({
          secret: v.secret,
          timestamp: v.timestamp,
          deliveryId: v.delivery_id,
          body: v.body,
          crypto,
        });
        expect(signed.signature).toBe(v.signature);
        expect(signed.headers).toEqual({
          'content-type': 'application/json',
          'x-service-signature': v.signature,
          'x-service-timestamp': String(v.timestamp),
          'x-service-delivery-id': v.delivery_id,
        });
      }
    },
  );

  it('adds the agent id header when given', async () => {
    const signed = await signWebhook({
      secret: SECRET,
      timestamp: 1,
      deliveryId: 'd1',
      body: '{}',
      agentId: 'agent_1',
    });
    expect(signed.headers['x-service-agent-id']).toBe('agent_1');
  });

  it('node and web backends agree on arbitrary bodies', async () => {
    const node = createWebhookSigner({ secret: SECRET, crypto: 'node' });
    const web = createWebhookSigner({ secret: SECRET, crypto: 'web' });
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 2048 }),
        fc.uuid(),
        fc.nat({ max: 99_999_999_999 }),
        async (body, id, ts) => {
          const input = { body, deliveryId: id, timestamp: ts };
          const [a, b] = await Promise.all([node.sign(input), web.sign(input)]);
          expect(a.signature).toMatch(/^[0-9a-f]{64}$/);
          expect(a.signature).toBe(b.signature);
        },
      ),
      { numRuns: 100 },
    );
  });

  it.each([
    ['a fractional timestamp', { timestamp: 1.5, deliveryId: 'd' }, 'timestamp'],
    ['a negative timestamp', { timestamp: -1, deliveryId: 'd' }, 'timestamp'],
    ['a delivery id with a dot', { timestamp: 1, deliveryId: 'a.b' }, 'deliveryId'],
    ['an empty delivery id', { timestamp: 1, deliveryId: '' }, 'deliveryId'],
  ])('refuses %s', async (_n, input, option) => {
    const err: unknown = await signWebhook({ secret: SECRET, body: '{}', ...input }).catch((e: unknown) => e);
    expect(isConfigurationError(err) && err.option === option).toBe(true);
  });

  it('refuses a short secret at construction', () => {
    expect(() => createWebhookSigner({ secret: 'short' })).toThrow(/at least 32 bytes/);
  });
});
