import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  parseDeliveryLogEntry,
  parseDeliveryLogList,
} from '../../../../packages/sdk/src/core/protocol/index.js';
import { deliveredEntry } from './fixtures.js';

function pathsOf(input: unknown): string[] {
  try {
    parseDeliveryLogEntry(input);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues.map((i) => i.path.join('.'));
  }
  return [];
}

describe('parseDeliveryLogEntry', () => {
  it('accepts the three final statuses with their conditional fields', () => {
    expect(parseDeliveryLogEntry(deliveredEntry()).final_status).toBe('delivered');
    const { latency_ms: _l, ...base } = deliveredEntry();
    const failed = parseDeliveryLogEntry({
      ...base,
      final_status: 'failed',
      error_class: 'http_500',
      attempt_count: 3,
    });
    expect(failed.final_status === 'failed' && failed.error_class).toBe('http_500');
    expect(
      parseDeliveryLogEntry({ ...base, final_status: 'unreachable', attempt_count: 8 }).final_status,
    ).toBe('unreachable');
  });

  it('requires latency_ms when delivered and error_class when failed', () => {
    const { latency_ms: _l, ...noLatency } = deliveredEntry();
    expect(pathsOf(noLatency)).toEqual(['latency_ms']);
    expect(pathsOf({ ...noLatency, final_status: 'failed' })).toEqual(['error_class']);
  });

  it('accepts timestamps with any time zone and precision', () => {
    const e = {
      ...deliveredEntry(),
      created_at: '2026-03-01T13:00:00+01:00',
      completed_at: '2026-03-01T12:00:00.5Z',
    };
    expect(parseDeliveryLogEntry(e).completed_at).toBe('2026-03-01T12:00:00.5Z');
  });

  it.each([
    ['a v4 delivery id', { delivery_id: '0195a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b' }, 'delivery_id'],
    [
      'a v7 id with the wrong variant',
      { delivery_id: '0195a1b2-c3d4-7e5f-4a6b-7c8d9e0f1a2b' },
      'delivery_id',
    ],
    ['a non-uuid agent id', { agent_id: 'agent-1' }, 'agent_id'],
    ['a timestamp without zone', { created_at: '2026-03-01T12:00:00' }, 'created_at'],
    ['completion before creation', { completed_at: '2026-03-01T11:59:59.999Z' }, 'completed_at'],
    ['zero attempts', { attempt_count: 0 }, 'attempt_count'],
    ['fractional attempts', { attempt_count: 1.5 }, 'attempt_count'],
    ['negative latency', { latency_ms: -1 }, 'latency_ms'],
    ['an unknown status', { final_status: 'pending' }, 'final_status'],
  ])('rejects %s', (_name, patch, path) => {
    expect(pathsOf({ ...deliveredEntry(), ...patch })).toContain(path);
  });

  it('accepts zero attempts only on a failed entry (expired before its first attempt)', () => {
    const failed = {
      ...deliveredEntry(),
      final_status: 'failed',
      error_class: 'pending_expired',
      attempt_count: 0,
    };
    delete (failed as { latency_ms?: number }).latency_ms;
    expect(pathsOf(failed)).toEqual([]);
  });

  it('keeps unknown fields', () => {
    const e = parseDeliveryLogEntry({ ...deliveredEntry(), http_status: 200 });
    expect((e as Record<string, unknown>)['http_status']).toBe(200);
  });

  it('accepts any consistent entry (property)', () => {
    const uuid7 = fc.uuid({ version: 7 });
    const entry = fc
      .record({
        delivery_id: uuid7,
        agent_id: fc.uuid(),
        created: fc.integer({ min: 0, max: 4_000_000_000_000 }),
        took: fc.integer({ min: 0, max: 86_400_000 }),
        attempt_count: fc.integer({ min: 1, max: 8 }),
        status: fc.constantFrom('delivered', 'failed', 'unreachable'),
      })
      .map(({ created, took, status, ...rest }) => ({
        ...rest,
        event_type: 'message.new',
        created_at: new Date(created).toISOString(),
        completed_at: new Date(created + took).toISOString(),
        final_status: status,
        ...(status === 'delivered' ? { latency_ms: took } : {}),
        ...(status === 'failed' ? { error_class: 'timeout' } : {}),
      }));
    fc.assert(
      fc.property(entry, (e) => {
        expect(parseDeliveryLogEntry(e)).toEqual(e);
      }),
    );
  });
});

describe('parseDeliveryLogList', () => {
  it('accepts an array of entries and reports the index of a bad one', () => {
    expect(parseDeliveryLogList([deliveredEntry(), deliveredEntry()])).toHaveLength(2);
    try {
      parseDeliveryLogList([deliveredEntry(), { ...deliveredEntry(), attempt_count: 0 }]);
      expect.unreachable();
    } catch (err) {
      expect((err as ValidationError).issues[0]?.path).toEqual([1, 'attempt_count']);
    }
    expect(() => parseDeliveryLogList({})).toThrow(ValidationError);
  });
});
