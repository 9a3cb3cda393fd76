import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { isWebhookVerificationError } from '../../../packages/sdk/src/core/errors/guards.js';
import {
  createWebhookVerifier,
  signWebhook,
  toWebhookDelivery,
} from '../../../packages/sdk/src/webhook/index.js';
import { SECRET, T0_MS } from '../../fixtures/webhook/deliveries.js';

const verifier = createWebhookVerifier({ secret: SECRET, clock: new ManualClock(T0_MS) });
const webVerifier = createWebhookVerifier({ secret: SECRET, clock: new ManualClock(T0_MS), crypto: 'web' });
const headerName = fc.constantFrom(
  'x-service-signature',
  'X-Service-Signature',
  'x-service-timestamp',
  'X-SERVICE-TIMESTAMP',
  'x-service-delivery-id',
  'X-Service-Delivery-Id',
  'x-service-agent-id',
  'content-type',
);
const headerValue = fc.oneof(
  fc.string(),
  fc.stringMatching(/^[0-9a-fA-F]{64}$/),
  fc.integer({ min: 1767225000, max: 1767226200 }).map(String),
  fc.uuid(),
  fc.array(fc.string(), { maxLength: 3 }),
);
const headers = fc.dictionary(fc.oneof(headerName, fc.string()), headerValue, { maxKeys: 8 });
const body = fc.oneof(fc.uint8Array({ maxLength: 512 }), fc.string(), fc.json());

describe('verifier properties', () => {
  it('answers arbitrary input only with its typed error and a 4xx status', async () => {
    await fc.assert(
      fc.asyncProperty(headers, body, async (h, b) => {
        for (const v of [verifier, webVerifier]) {
          try {
            await v.verify({ body: b, headers: h });
          } catch (err) {
            expect(isWebhookVerificationError(err)).toBe(true);
            const status = (err as { status: number }).status;
            expect(status).toBeGreaterThanOrEqual(400);
            expect(status).toBeLessThan(500);
            continue;
          }
          throw new Error('an unsigned delivery was accepted');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('accepts what it signs within the window, and nothing once a byte changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        fc.uuid(),
        fc.integer({ min: -300, max: 300 }),
        fc.nat(),
        async (bytes, id, skew, at) => {
          const timestamp = T0_MS / 1000 + skew;
          const { headers: h } = await signWebhook({
            secret: SECRET,
            timestamp,
            deliveryId: id,
            body: bytes,
          });
          const ok = await verifier.verifySignature({ body: bytes, headers: h });
          expect(ok.deliveryId).toBe(id);
          const tampered = bytes.slice();
          const i = at % tampered.length;
          tampered[i] = tampered[i]! ^ 0x80;
          await expect(webVerifier.verifySignature({ body: tampered, headers: h })).rejects.toMatchObject({
            code: 'WEBHOOK_SIGNATURE_INVALID',
            status: 401,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a signed body of any shape verifies to a delivery or WEBHOOK_PAYLOAD_INVALID (400), nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.json(),
          fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
        ),
        async (b) => {
          const { headers: h } = await signWebhook({
            secret: SECRET,
            timestamp: T0_MS / 1000,
            deliveryId: 'd-1',
            body: b,
          });
          try {
            const verified = await verifier.verify({ body: b, headers: h });
            expect(verified.delivery.version).toBe('v1');
          } catch (err) {
            expect(
              isWebhookVerificationError(err) && err.code === 'WEBHOOK_PAYLOAD_INVALID' && err.status === 400,
            ).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the delivery validator returns a delivery or throws WEBHOOK_PAYLOAD_INVALID, nothing else', () => {
    const field = fc.oneof(
      fc.string(),
      fc.constant(null),
      fc.integer(),
      fc.constant('v1'),
      fc.constant('AAEC'),
    );
    const metadata = fc.record(
      {
        conversation_id: field,
        sender_id: field,
        created_at: fc.oneof(
          field,
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        ),
      },
      { requiredKeys: [] },
    );
    const ref = fc.record(
      {
        type: fc.oneof(fc.constant('r2'), field),
        object_key: field,
        size: fc.oneof(fc.integer(), field),
        content_type: field,
      },
      { requiredKeys: [] },
    );
    const candidate = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          type: field,
          version: field,
          wire_envelope: field,
          ref: fc.oneof(ref, fc.constant(null)),
          metadata,
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(candidate, (value) => {
        try {
          const d = toWebhookDelivery(value);
          expect(d.version).toBe('v1');
          expect(typeof d.metadata.created_at).toBe('string');
          expect(d.ref === undefined ? typeof d.wire_envelope === 'string' : d.wire_envelope === null).toBe(
            true,
          );
        } catch (err) {
          expect(isWebhookVerificationError(err) && err.code === 'WEBHOOK_PAYLOAD_INVALID').toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
