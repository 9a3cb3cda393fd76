import { describe, expect, it } from 'vitest';
import { forwardLabel } from '../../../packages/dev/src/console/forwards.js';
import type { ForwardAttribution } from '../../../packages/sdk/src/messaging/forward-attribution.js';

const base: ForwardAttribution = {
  verified: true,
  reason: undefined,
  forwardedBy: 'agent-1',
  senderId: 'user-1',
  conversationId: 'c',
  messageId: 'm',
  createdAt: '2026-11-27T12:00:00.000Z',
  payload: { type: 'text', text: 'hi' },
};
const names = (id: string): string => ({ 'agent-1': 'Bot', 'user-1': 'Ada' })[id] ?? id;

describe('forwardLabel', () => {
  it('names the original sender only when the proof verified', () => {
    expect(forwardLabel(base, names)).toBe('↪ forwarded from Ada (verified): hi');
    expect(forwardLabel({ ...base, verified: false, reason: 'no_proof' }, names)).toBe(
      '↪ forwarded by Bot, unverified claim (no_proof) that Ada wrote: hi',
    );
    expect(forwardLabel({ ...base, payload: { type: 'file' } }, names)).toBe(
      '↪ forwarded from Ada (verified): [file]',
    );
  });
});
