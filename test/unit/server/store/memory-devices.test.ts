import { describe, expect, it } from 'vitest';
import { createMemoryDeviceStore } from '../../../../packages/dev/src/server/store/memory-devices.js';

const DAY = 86_400_000;
const signIn = (deviceId: string, name: string, nowMs = 0, hash = `h-${deviceId}-${nowMs}`) => ({
  userId: 'u',
  deviceId,
  name,
  nowMs,
  maxDevices: 5,
  newSessionId: `s-${deviceId}`,
  refreshHash: hash,
  refreshExpiresAtMs: nowMs + 30 * DAY,
});

describe('memory device store', () => {
  it('enforces the device limit and unique names; a known device keeps its session', async () => {
    const store = createMemoryDeviceStore();
    for (const n of [1, 2, 3, 4, 5]) expect((await store.signIn(signIn(`d${n}`, `n${n}`))).ok).toBe(true);
    expect(await store.signIn(signIn('d6', 'n6'))).toEqual({ ok: false, reason: 'device_limit' });
    expect(await store.signIn(signIn('d1', 'n2'))).toEqual({ ok: false, reason: 'name_taken' });
    const again = await store.signIn({ ...signIn('d1', 'renamed', 5), newSessionId: 'ignored' });
    expect(again).toMatchObject({
      ok: true,
      created: false,
      device: { sessionId: 's-d1', name: 'renamed', createdAtMs: 0 },
    });
  });

  it('rotates refresh tokens; a rotated-out token revokes the device', async () => {
    const store = createMemoryDeviceStore();
    await store.signIn(signIn('d1', 'one', 0, 'r0'));
    expect(await store.rotateRefresh('r0', 'r1', 30 * DAY + 10, 10)).toMatchObject({
      ok: true,
      device: { refreshHash: 'r1' },
    });
    expect(await store.rotateRefresh('nope', 'x', 0, 10)).toEqual({ ok: false, reason: 'unknown' });
    const reuse = await store.rotateRefresh('r0', 'r2', 30 * DAY, 20);
    expect(reuse).toMatchObject({ ok: false, reason: 'reused', revoked: { deviceId: 'd1' } });
    expect(await store.get('u', 'd1', 20)).toBeUndefined();
    expect(await store.rotateRefresh('r1', 'r3', 30 * DAY, 20)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('a device whose refresh token expired is gone: not listed, not counted', async () => {
    const store = createMemoryDeviceStore();
    await store.signIn(signIn('old', 'Old', 0, 'r-old'));
    expect(await store.list('u', 30 * DAY - 1)).toHaveLength(1);
    expect(await store.rotateRefresh('r-old', 'x', 60 * DAY, 30 * DAY)).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(await store.list('u', 30 * DAY)).toEqual([]);
  });

  it('removes one device or all of them', async () => {
    const store = createMemoryDeviceStore();
    await store.signIn(signIn('a', 'A'));
    await store.signIn(signIn('b', 'B'));
    expect((await store.remove('u', 'a'))?.deviceId).toBe('a');
    expect(await store.remove('u', 'a')).toBeUndefined();
    expect((await store.removeAll('u')).map((d) => d.deviceId)).toEqual(['b']);
    expect(await store.rotateRefresh('h-b-0', 'x', DAY, 1)).toEqual({ ok: false, reason: 'unknown' });
  });
});
