import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  CONNECTION_STATUSES,
  ConnectionStatusSchema,
  isKnownConnectionStatus,
  parseRecoverConnectionResult,
} from '../../../../packages/sdk/src/core/protocol/index.js';

describe('connection status', () => {
  it('knows ready and unreachable, keeps other values as-is', () => {
    expect([...CONNECTION_STATUSES]).toEqual(['ready', 'unreachable']);
    expect(isKnownConnectionStatus('ready')).toBe(true);
    expect(isKnownConnectionStatus('unreachable')).toBe(true);
    expect(isKnownConnectionStatus('degraded')).toBe(false);
    expect(ConnectionStatusSchema.parse('degraded')).toBe('degraded');
    expect(ConnectionStatusSchema.safeParse('').success).toBe(false);
    expect(ConnectionStatusSchema.safeParse(1).success).toBe(false);
  });

  it('parses the recovery answer', () => {
    expect(parseRecoverConnectionResult({ pending_count: 3, recovered_at: 'x' })).toEqual({
      pending_count: 3,
      recovered_at: 'x',
    });
    for (const bad of [{}, { pending_count: -1 }, { pending_count: 1.5 }, { pending_count: '3' }]) {
      expect(() => parseRecoverConnectionResult(bad)).toThrow(ValidationError);
    }
  });
});
