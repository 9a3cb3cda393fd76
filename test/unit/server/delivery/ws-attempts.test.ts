/**
 * The dev console's view of WebSocket deliveries: each frame sent is an
 * attempt (connection, outcome acked / requeued / ack_timeout / sent,
 * latency), and the engine's observer hears every change.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { createDeliveryEngine } from '../../../../packages/dev/src/server/delivery/index.js';
import type { DeliveryObservation } from '../../../../packages/dev/src/server/delivery/observer.js';
import type { WsSession } from '../../../../packages/dev/src/server/delivery/types.js';
import { event, FakeSender, FakeTarget } from './fakes.js';

const A1 = '0195523b-0000-4000-8000-000000000001';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function rig() {
  const clock = new ManualClock(T0);
  const target = new (class extends FakeTarget {
    session: WsSession | undefined;
    wsSession = (): WsSession | undefined => this.session;
  })();
  target.modes.set(A1, 'websocket');
  const seen: DeliveryObservation[] = [];
  const engine = createDeliveryEngine({
    clock,
    target,
    sender: new FakeSender(),
    wsAck: { timeoutMs: 1_000, maxAttempts: 2 },
    observe: (o) => seen.push(o),
  });
  const connect = (id: number, acks = true) => {
    target.session = { id, acks };
    target.open.add(A1);
    engine.onAgentConnected(A1);
  };
  const disconnect = (id: number) => {
    target.session = undefined;
    target.open.delete(A1);
    engine.onAgentDisconnected(A1, id);
  };
  const ids = () => target.frames.map((f) => String(f.frame['delivery_id']));
  return { clock, engine, seen, connect, disconnect, ids };
}

describe('delivery engine: WebSocket attempts (dev console)', () => {
  it('acked after N ms; requeued when the connection closed first; both on their connection', () => {
    const r = rig();
    r.connect(7);
    r.engine.enqueue(A1, event(1));
    const id = r.ids()[0]!;
    expect(r.engine.attempts(A1, id)).toEqual([
      {
        attempt: 1,
        started_at: iso(T0),
        status_code: null,
        outcome: 'awaiting_ack',
        error_class: null,
        latency_ms: 0,
        next_attempt_at: null,
        channel: 'websocket',
        connection: 7,
        run: 1,
        headers: null,
      },
    ]);
    expect(r.engine.pending(A1)).toEqual([
      {
        delivery_id: id,
        event_type: 'message.new',
        state: 'awaiting_ack',
        attempt_count: 1,
        created_at: iso(T0),
      },
    ]);
    r.clock.advance(40);
    r.disconnect(7);
    expect(r.engine.pending(A1)).toMatchObject([{ delivery_id: id, state: 'retrying' }]);
    r.clock.advance(60);
    r.connect(8);
    r.clock.advance(25);
    r.engine.ack(A1, [id]);
    expect(r.engine.attempts(A1, id)).toMatchObject([
      { attempt: 1, connection: 7, outcome: 'requeued', error_class: 'connection_closed', latency_ms: 40 },
      {
        attempt: 2,
        connection: 8,
        outcome: 'acked',
        error_class: null,
        latency_ms: 25,
        started_at: iso(T0 + 100),
      },
    ]);
    expect(r.engine.pending(A1)).toEqual([]);
  });

  it('an overdue ack: ack_timeout, sent again, then given up', () => {
    const r = rig();
    r.connect(1);
    r.engine.enqueue(A1, event(1));
    const id = r.ids()[0]!;
    r.clock.advance(1_000);
    r.clock.advance(1_000);
    expect(r.engine.attempts(A1, id)).toMatchObject([
      { attempt: 1, outcome: 'ack_timeout', error_class: 'ack_timeout', latency_ms: 1_000 },
      { attempt: 2, outcome: 'ack_timeout', latency_ms: 1_000 },
    ]);
    expect(r.engine.logs(A1, 5)).toMatchObject([{ final_status: 'failed', error_class: 'ack_timeout' }]);
  });

  it('a session without acks: one `sent` attempt; the observer hears queued, attempt, delivered, connect/close', () => {
    const r = rig();
    r.connect(3, false);
    r.engine.enqueue(A1, event(1));
    const id = r.ids()[0]!;
    expect(r.engine.attempts(A1, id)).toMatchObject([{ outcome: 'sent', connection: 3 }]);
    r.disconnect(3);
    expect(r.seen.map((o) => o.change)).toEqual([
      'websocket_connected',
      'queued',
      'attempt_finished',
      'delivered',
      'websocket_closed',
    ]);
    expect(r.seen[1]).toEqual({ change: 'queued', agentId: A1, deliveryId: id, eventType: 'message.new' });
  });

  it('a throwing observer does not break delivery', () => {
    const clock = new ManualClock(T0);
    const target = new FakeTarget();
    target.modes.set(A1, 'websocket');
    target.open.add(A1);
    const engine = createDeliveryEngine({
      clock,
      target,
      sender: new FakeSender(),
      observe: () => {
        throw new Error('boom');
      },
    });
    engine.enqueue(A1, event(1));
    expect(engine.logs(A1, 5)).toMatchObject([{ final_status: 'delivered' }]);
  });
});
