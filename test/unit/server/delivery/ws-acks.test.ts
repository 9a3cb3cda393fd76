import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import {
  createDeliveryEngine,
  type ReferenceDeliveryEngine,
} from '../../../../packages/dev/src/server/delivery/index.js';
import type { WsAckOptions, WsSession } from '../../../../packages/dev/src/server/delivery/types.js';
import { event, FakeSender, FakeTarget, SECRET } from './fakes.js';

const A1 = '0195523b-0000-4000-8000-000000000001';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');

/** A target whose agent WebSocket sessions can be opened and closed, with or without acks. */
class SessionTarget extends FakeTarget {
  session: WsSession | undefined;
  #next = 1;

  connect(acks = true): number {
    const id = this.#next++;
    this.session = { id, acks };
    this.open.add(A1);
    return id;
  }

  disconnect(): void {
    this.session = undefined;
    this.open.delete(A1);
  }

  wsSession = (): WsSession | undefined => this.session;

  /** Conversation numbers of the frames sent, in order. */
  sent(): string[] {
    return this.frames.map((f) =>
      String((f.frame['metadata'] as { conversation_id: string }).conversation_id),
    );
  }

  ids(): string[] {
    return this.frames.map((f) => String(f.frame['delivery_id']));
  }
}

interface Rig {
  clock: ManualClock;
  target: SessionTarget;
  engine: ReferenceDeliveryEngine;
  sender: FakeSender;
}

function rig(wsAck: WsAckOptions = {}): Rig {
  const clock = new ManualClock(T0);
  const target = new SessionTarget();
  target.modes.set(A1, 'websocket');
  const sender = new FakeSender();
  const engine = createDeliveryEngine({ clock, target, sender, wsAck });
  return { clock, target, engine, sender };
}

describe('delivery engine: acknowledged WebSocket delivery', () => {
  it('a delivery stays pending until its ack; then it is logged delivered with the real latency', () => {
    const r = rig();
    r.target.connect();
    r.engine.enqueue(A1, event(1));
    expect(r.target.sent()).toEqual(['conv_1']);
    expect(r.engine.pendingCount(A1)).toBe(1);
    expect(r.engine.logs(A1, 10)).toEqual([]);
    r.clock.advance(250);
    expect(r.engine.ack(A1, r.target.ids())).toBe(1);
    expect(r.engine.pendingCount(A1)).toBe(0);
    expect(r.engine.logs(A1, 10)).toMatchObject([
      { final_status: 'delivered', latency_ms: 250, attempt_count: 1 },
    ]);
    // A second ack of the same id, or an unknown id, changes nothing.
    expect(r.engine.ack(A1, [...r.target.ids(), 'unknown'])).toBe(0);
    expect(r.engine.logs(A1, 10)).toHaveLength(1);
  });

  it('at most `window` deliveries are unacknowledged; each ack lets the next one go', () => {
    const r = rig({ window: 3 });
    r.target.connect();
    for (let n = 1; n <= 5; n++) r.engine.enqueue(A1, event(n));
    expect(r.target.sent()).toEqual(['conv_1', 'conv_2', 'conv_3']);
    expect(r.engine.pendingCount(A1)).toBe(5);
    r.engine.ack(A1, [r.target.ids()[1]!]); // out of order: acks are per delivery, not cumulative
    expect(r.target.sent()).toEqual(['conv_1', 'conv_2', 'conv_3', 'conv_4']);
    expect(r.engine.pendingCount(A1)).toBe(4);
  });

  it('a session that ends puts its unacknowledged deliveries back in front, in order, for the next session', () => {
    const r = rig();
    const first = r.target.connect();
    for (let n = 1; n <= 4; n++) r.engine.enqueue(A1, event(n));
    const firstIds = r.target.ids();
    r.engine.ack(A1, [firstIds[1]!]);
    r.target.disconnect();
    r.engine.onAgentDisconnected(A1, first);
    r.engine.enqueue(A1, event(5)); // arrives while disconnected
    expect(r.engine.pendingCount(A1)).toBe(4);
    r.target.frames.length = 0;
    r.target.connect();
    r.engine.onAgentConnected(A1);
    expect(r.target.sent()).toEqual(['conv_1', 'conv_3', 'conv_4', 'conv_5']);
    // Same delivery ids, marked as redelivered.
    expect(r.target.ids().slice(0, 3)).toEqual([firstIds[0], firstIds[2], firstIds[3]]);
    expect(r.target.frames.map((f) => f.frame['redelivered'] === true)).toEqual([true, true, true, false]);
  });

  it('a new session requeues what an older one left even before the older one is reported closed', () => {
    const r = rig();
    const first = r.target.connect();
    r.engine.enqueue(A1, event(1));
    r.target.frames.length = 0;
    r.target.connect(); // the replacement authenticates first
    r.engine.onAgentConnected(A1);
    expect(r.target.sent()).toEqual(['conv_1']);
    r.engine.onAgentDisconnected(A1, first); // late close of the old session: nothing of the new one moves
    expect(r.engine.pendingCount(A1)).toBe(1);
    expect(r.target.sent()).toEqual(['conv_1']);
  });

  it('an overdue ack sends the delivery again on the same session; after maxAttempts it is logged failed', () => {
    const r = rig({ timeoutMs: 1000, maxAttempts: 3 });
    r.target.connect();
    r.engine.enqueue(A1, event(1));
    r.clock.advance(999);
    expect(r.target.frames).toHaveLength(1);
    r.clock.advance(1);
    expect(r.target.frames).toHaveLength(2);
    expect(r.target.frames[1]!.frame['redelivered']).toBe(true);
    r.clock.advance(1000);
    expect(r.target.frames).toHaveLength(3);
    r.clock.advance(1000);
    expect(r.target.frames).toHaveLength(3);
    expect(r.engine.pendingCount(A1)).toBe(0);
    expect(r.engine.logs(A1, 10)).toMatchObject([
      { final_status: 'failed', error_class: 'ack_timeout', attempt_count: 3 },
    ]);
  });

  it('an ack that comes in time stops the resends', () => {
    const r = rig({ timeoutMs: 1000 });
    r.target.connect();
    r.engine.enqueue(A1, event(1));
    r.clock.advance(500);
    r.engine.ack(A1, r.target.ids());
    r.clock.advance(10_000);
    expect(r.target.frames).toHaveLength(1);
  });

  it('switching to webhook mode delivers the unacknowledged deliveries by webhook, first', async () => {
    const r = rig();
    const s = r.target.connect();
    for (let n = 1; n <= 2; n++) r.engine.enqueue(A1, event(n));
    const wsIds = r.target.ids();
    r.target.modes.set(A1, 'webhook');
    r.engine.setWebhook(A1, { url: 'http://127.0.0.1:1/hook', secret: SECRET });
    r.target.disconnect();
    r.engine.onAgentDisconnected(A1, s);
    r.engine.enqueue(A1, event(3));
    await r.engine.idle();
    for (let i = 0; i < 3; i++) await r.engine.idle();
    expect(r.sender.deliveryIds.slice(0, 2)).toEqual(wsIds);
    expect(r.sender.deliveryIds).toHaveLength(3);
    expect(r.engine.pendingCount(A1)).toBe(0);
  });

  it('a session without acks: a delivery counts once written (the behaviour of a service without acks)', () => {
    const r = rig();
    r.target.connect(false);
    r.engine.enqueue(A1, event(1));
    expect(r.engine.pendingCount(A1)).toBe(0);
    expect(r.engine.logs(A1, 10)).toMatchObject([{ final_status: 'delivered', attempt_count: 1 }]);
  });

  it('rejects bad ack options', () => {
    expect(() => rig({ window: 0 })).toThrow(/wsAck.window/);
    expect(() => rig({ timeoutMs: 1.5 })).toThrow(/wsAck.timeoutMs/);
    expect(() => rig({ maxAttempts: 0 })).toThrow(/wsAck.maxAttempts/);
  });
});
