import { describe, expect, it } from 'vitest';
import { SENDER_KEY_MEMO_MS, senderKeys } from '../../../packages/sdk/src/agent/sender-keys.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';

function directory() {
  const calls: string[] = [];
  const invalidated: string[] = [];
  let fail = false;
  return {
    calls,
    invalidated,
    failNext: () => void (fail = true),
    signingKey: async (id: string) => {
      calls.push(id);
      if (fail) {
        fail = false;
        throw new Error('down');
      }
      return new Uint8Array(32).fill(calls.length);
    },
    invalidate: (id?: string) => void invalidated.push(String(id)),
    retiredSigningKeys: async () => [],
  };
}

describe('sender key memo', () => {
  it('asks the directory once per sender within the memo time, again after it', async () => {
    const clock = new ManualClock(0);
    const d = directory();
    const keys = senderKeys(d, clock);
    const a = await keys.signingKey('u1');
    expect(await keys.signingKey('u1')).toBe(a);
    await keys.signingKey('u2');
    expect(d.calls).toEqual(['u1', 'u2']);
    clock.advance(SENDER_KEY_MEMO_MS);
    await keys.signingKey('u1');
    expect(d.calls).toEqual(['u1', 'u2', 'u1']);
  });

  it('invalidate drops the memo and the directory entry; failures are not remembered', async () => {
    const d = directory();
    const keys = senderKeys(d, new ManualClock(0));
    await keys.signingKey('u1');
    keys.invalidate('u1');
    expect(d.invalidated).toEqual(['u1']);
    d.failNext();
    await expect(keys.signingKey('u1')).rejects.toThrow('down');
    await keys.signingKey('u1');
    expect(d.calls).toEqual(['u1', 'u1', 'u1']);
  });
});
