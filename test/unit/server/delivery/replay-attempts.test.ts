/**
 * The engine's dev-console extras: replaying a delivery under the same id
 * (only once it left the queue, only for its own agent), and the attempt
 * detail of each webhook attempt (status code, outcome, latency, next attempt
 * on the retry schedule, Retry-After).
 */
import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { WEBHOOK_RETRY_SCHEDULE_MS } from '../../../../packages/sdk/src/core/limits.js';
import { createDeliveryEngine } from '../../../../packages/dev/src/server/delivery/index.js';
import { event, FakeSender, FakeTarget, SECRET, status } from './fakes.js';

const A1 = '0195523b-0000-4000-8000-000000000001';
const A2 = '0195523b-0000-4000-8000-000000000002';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');

function rig() {
  const clock = new ManualClock(T0);
  const sender = new FakeSender();
  const target = new FakeTarget();
  target.modes.set(A1, 'webhook');
  target.modes.set(A2, 'webhook');
  const engine = createDeliveryEngine({ clock, target, sender });
  engine.setWebhook(A1, { url: 'http://127.0.0.1:1/a1', secret: SECRET });
  engine.setWebhook(A2, { url: 'http://127.0.0.1:1/a2', secret: SECRET });
  return { clock, sender, engine };
}

describe('delivery engine: replay', () => {
  it('re-sends a delivered event under the same delivery id; refused while queued, for another agent, or unknown', async () => {
    const r = rig();
    r.sender.script(status(503));
    r.engine.enqueue(A1, event(1));
    await r.engine.idle();
    // First attempt failed, the immediate retry succeeded: delivered.
    expect(r.engine.logs(A1, 10)[0]).toMatchObject({ final_status: 'delivered', attempt_count: 2 });
    const id = r.sender.deliveryIds[0]!;
    expect(r.engine.replay(A2, id)).toBe(false);
    expect(r.engine.replay(A1, '0195523b-0000-7000-8000-00000000ffff')).toBe(false);

    r.sender.script('held');
    expect(r.engine.replay(A1, id)).toBe(true);
    // In flight: a second replay of the same id is refused.
    expect(r.engine.replay(A1, id)).toBe(false);
    await vi.waitFor(() => expect(r.sender.sends).toHaveLength(3));
    r.sender.sends[2]!.release(status(200));
    await r.engine.idle();
    expect(r.sender.deliveryIds).toEqual([id, id, id]);
    expect(r.sender.bodies[2]).toEqual(r.sender.bodies[0]);
    const logs = r.engine.logs(A1, 10);
    expect(logs.map((l) => [l.delivery_id, l.final_status])).toEqual([
      [id, 'delivered'],
      [id, 'delivered'],
    ]);
    // Delivered again: replayable again.
    expect(r.engine.replay(A1, id)).toBe(true);
    await r.engine.idle();
  });

  it('a delivery still waiting on the retry schedule is not replayable; forgetting the agent forgets its deliveries', async () => {
    const r = rig();
    r.sender.fallback = status(503);
    r.engine.enqueue(A1, event(2));
    await r.engine.idle();
    const id = r.sender.deliveryIds[0]!;
    expect(r.engine.replay(A1, id)).toBe(false);
    r.engine.forgetAgent(A1);
    expect(r.engine.attempts(A1, id)).toEqual([]);
    expect(r.engine.replay(A1, id)).toBe(false);
  });
});

describe('delivery engine: attempts of a delivery', () => {
  it('each attempt: status code, outcome, error class, next attempt on the schedule or Retry-After', async () => {
    const r = rig();
    r.sender.script(status(503), status(429, '7'), { kind: 'timeout' }, status(200));
    r.engine.enqueue(A1, event(3));
    await r.engine.idle();
    const id = r.sender.deliveryIds[0]!;
    const iso = (ms: number) => new Date(ms).toISOString();
    // 503 → immediate retry; 429 Retry-After 7 s (not a failure); the timeout is the 2nd failure: 30 s.
    expect(r.engine.attempts(A1, id)).toEqual([
      {
        attempt: 1,
        started_at: iso(T0),
        status_code: 503,
        outcome: 'temporary',
        error_class: 'http_5xx',
        latency_ms: 0,
        next_attempt_at: iso(T0),
        channel: 'webhook',
        connection: null,
        run: 1,
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'content-length': expect.any(String),
        }),
      },
      {
        attempt: 2,
        started_at: iso(T0),
        status_code: 429,
        outcome: 'throttled',
        error_class: null,
        latency_ms: 0,
        next_attempt_at: iso(T0 + 7_000),
        channel: 'webhook',
        connection: null,
        run: 1,
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'content-length': expect.any(String),
        }),
      },
    ]);
    r.clock.advance(7_000);
    await r.engine.idle();
    const third = r.engine.attempts(A1, id)[2]!;
    expect(third).toMatchObject({ status_code: null, outcome: 'temporary', error_class: 'timeout' });
    expect(third.next_attempt_at).toBe(iso(T0 + 7_000 + WEBHOOK_RETRY_SCHEDULE_MS[1]!));
    r.clock.advance(WEBHOOK_RETRY_SCHEDULE_MS[1]!);
    await r.engine.idle();
    expect(r.engine.attempts(A1, id)[3]).toMatchObject({
      attempt: 4,
      status_code: 200,
      outcome: 'delivered',
      next_attempt_at: null,
    });
    expect(r.engine.attempts(A2, id)).toEqual([]);
  });
});
