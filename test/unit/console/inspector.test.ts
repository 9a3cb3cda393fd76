/**
 * The console inspector's pure parts (packages/dev/src/console/inspector.ts
 * and timeline.ts): the envelope's clear header as the page shows it (never
 * the payload), any text refused in a row rather than thrown (property), the
 * delivery's state, and the timeline's attempt marks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptTone,
  deliveryState,
  envelopeRows,
  type DeliveryView,
} from '../../../packages/dev/src/console/inspector.js';
import { attemptMark } from '../../../packages/dev/src/console/timeline.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import { seal } from '../../../packages/sdk/src/crypto/seal.js';

describe('console inspector', () => {
  it("shows the envelope's clear header, each recipient, the ciphertext's size only", () => {
    const sender = generateKeys();
    const agent = generateKeys();
    const wire = seal(
      { type: 'text', text: 'never shown by the inspector' },
      {
        sender: { id: 'user-1', signing: sender.signing },
        recipients: [
          { id: 'user-1', publicKey: sender.encryption.publicKey },
          { id: 'agent-1', publicKey: agent.encryption.publicKey },
        ],
        conversationId: 'conv-1',
        messageId: 'm-1',
        eventType: 'message.new',
      },
    );
    const rows = Object.fromEntries(envelopeRows(wire));
    expect(rows).toMatchObject({
      format: 'AMS envelope v1.1',
      sender: 'user-1',
      conversation: 'conv-1',
      'message id': 'm-1',
      'event type': 'message.new',
    });
    expect(rows['recipient 1']).toMatch(/^user-1 \(key [0-9a-f]{16}\)$/);
    expect(rows['recipient 2']).toMatch(/^agent-1 \(key [0-9a-f]{16}\)$/);
    expect(rows['ciphertext']).toMatch(/^\d+ bytes \(sealed\)$/);
    expect(JSON.stringify(rows)).not.toContain('never shown');
  });

  it('any text becomes rows saying what it is, never an exception (property)', () => {
    expect(envelopeRows('%%%')).toEqual([['format', 'not base64']]);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.uint8Array().map((b) => Buffer.from(b).toString('base64')),
        ),
        (text) => {
          const rows = envelopeRows(text);
          expect(rows.length).toBeGreaterThan(0);
          for (const [k, v] of rows) expect(typeof k === 'string' && typeof v === 'string').toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a delivery is in its pending state, else its latest final status', () => {
    const base = { pending_state: null, outcomes: [] } as unknown as DeliveryView;
    expect(deliveryState(base)).toBe('queued');
    expect(deliveryState({ ...base, pending_state: 'retrying' })).toBe('retrying');
    const entry = (final_status: string) => ({
      delivery_id: 'd',
      event_type: 'message.new',
      final_status,
      attempt_count: 1,
      completed_at: '2026-01-01T00:00:00.000Z',
    });
    expect(deliveryState({ ...base, outcomes: [entry('failed'), entry('delivered')] })).toBe('delivered');
  });

  it("the timeline's marks: WebSocket acks and requeues, webhook answers", () => {
    const a = {
      attempt: 1,
      started_at: '2026-01-01T00:00:00.000Z',
      status_code: null,
      error_class: null,
      latency_ms: 3,
      next_attempt_at: null,
    };
    expect(attemptMark({ ...a, outcome: 'acked', channel: 'websocket', connection: 2 })).toBe(
      '#1 ws acked 3 ms',
    );
    expect(attemptMark({ ...a, outcome: 'requeued', channel: 'websocket', connection: 2 })).toBe(
      '#1 ws requeued',
    );
    expect(attemptMark({ ...a, outcome: 'ack_timeout', channel: 'websocket', connection: 2 })).toBe(
      '#1 ws ack timeout',
    );
    expect(attemptMark({ ...a, outcome: 'temporary', status_code: 503, channel: 'webhook' })).toBe(
      '#1 HTTP 503 3 ms',
    );
    expect(attemptMark({ ...a, outcome: 'temporary', error_class: 'timeout', channel: 'webhook' })).toBe(
      '#1 timeout 3 ms',
    );
    expect(['delivered', 'acked', 'sent', 'permanent', 'temporary'].map(attemptTone)).toEqual([
      'ok',
      'ok',
      'ok',
      'bad',
      'warn',
    ]);
  });
});
