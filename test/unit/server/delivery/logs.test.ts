import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { DeliveryLogEntrySchema } from '../../../../packages/sdk/src/core/protocol/delivery-log.js';
import {
  DeliveryLogBook,
  MAX_LOG_ENTRIES_PER_AGENT,
  type LogInput,
} from '../../../../packages/dev/src/server/delivery/logs.js';
import { uuidV7 } from '../../../../packages/dev/src/server/delivery/ids.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const DAY = 86_400_000;
const AGENT = '0195523b-0000-4000-8000-0000000000bb';

function input(clock: ManualClock, over: Partial<LogInput> = {}): LogInput {
  return {
    deliveryId: uuidV7(clock.now()),
    agentId: AGENT,
    eventType: 'message.new',
    createdAtMs: clock.now() - 250,
    attempts: 1,
    status: 'delivered',
    ...over,
  };
}

describe('DeliveryLogBook', () => {
  it('writes entries that satisfy the protocol schema for every final status', () => {
    const clock = new ManualClock(T0);
    const book = new DeliveryLogBook(clock);
    book.record(input(clock));
    book.record(input(clock, { status: 'failed', errorClass: 'http_4xx' }));
    book.record(input(clock, { status: 'unreachable', attempts: 8, errorClass: 'timeout' }));
    const [unreachable, failed, delivered] = book.list(AGENT, 10);
    expect(DeliveryLogEntrySchema.parse(delivered)).toMatchObject({ latency_ms: 250, attempt_count: 1 });
    expect(DeliveryLogEntrySchema.parse(failed)).toMatchObject({ error_class: 'http_4xx' });
    expect(DeliveryLogEntrySchema.parse(unreachable)).toMatchObject({ attempt_count: 8 });
    expect(delivered!.completed_at).toBe('2026-03-01T12:00:00.000Z');
    expect(delivered!.created_at).toBe('2026-03-01T11:59:59.750Z');
    expect(book.list(AGENT, 10).map((e) => e.final_status)).toEqual(['unreachable', 'failed', 'delivered']);
  });

  it('forgets entries completed more than 30 days ago', () => {
    const clock = new ManualClock(T0);
    const book = new DeliveryLogBook(clock);
    book.record(input(clock));
    clock.advance(DAY);
    book.record(input(clock));
    clock.advance(29 * DAY);
    expect(book.list(AGENT, 10)).toHaveLength(2);
    clock.advance(1);
    expect(book.list(AGENT, 10)).toHaveLength(1);
    clock.advance(DAY);
    expect(book.list(AGENT, 10)).toHaveLength(0);
  });

  it('replaces the entry of a delivery sent again after a recovery', () => {
    const clock = new ManualClock(T0);
    const book = new DeliveryLogBook(clock);
    const first = input(clock, { status: 'unreachable', attempts: 8 });
    book.record(first);
    book.record(input(clock));
    clock.advance(1000);
    book.record({ ...first, status: 'delivered', attempts: 9, replace: true });
    const list = book.list(AGENT, 10);
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({
      delivery_id: first.deliveryId,
      final_status: 'delivered',
      attempt_count: 9,
    });
  });

  it('keeps at most about 10 000 entries per agent and never lists more than asked', () => {
    const clock = new ManualClock(T0);
    const book = new DeliveryLogBook(clock);
    for (let i = 0; i < MAX_LOG_ENTRIES_PER_AGENT + 1000; i++) book.record(input(clock));
    expect(book.list(AGENT, 20_000).length).toBe(MAX_LOG_ENTRIES_PER_AGENT);
    expect(book.list(AGENT, 3)).toHaveLength(3);
    book.forget(AGENT);
    expect(book.list(AGENT, 3)).toEqual([]);
  });
});
