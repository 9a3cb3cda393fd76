/**
 * In-memory devices, sessions and refresh tokens. Each method runs to
 * completion without awaiting, so each is atomic.
 *
 * Rotated-out refresh tokens are remembered (up to {@link ROTATED_HISTORY}
 * per device, until they would have expired) so that a replayed one can be
 * recognised and the whole device session revoked.
 *
 * @module
 */
import type {
  DeviceRecord,
  DeviceSignIn,
  DeviceSignInOutcome,
  DeviceStore,
  RefreshRotation,
} from './types.js';

/** Rotated refresh tokens remembered per device for reuse detection. */
export const ROTATED_HISTORY = 32;

interface RotatedToken {
  readonly userId: string;
  readonly deviceId: string;
  readonly sessionId: string;
  readonly expiresAtMs: number;
}

const key = (userId: string, deviceId: string): string => `${userId}\u0000${deviceId}`;

/** Creates an empty in-memory {@link DeviceStore}. */
export function createMemoryDeviceStore(): DeviceStore {
  const devices = new Map<string, DeviceRecord>();
  const current = new Map<string, string>(); // refresh hash → device key
  const rotated = new Map<string, RotatedToken>(); // old refresh hash → owner
  const history = new Map<string, string[]>(); // device key → rotated hashes, oldest first

  const live = (d: DeviceRecord | undefined, nowMs: number): DeviceRecord | undefined =>
    d !== undefined && d.refreshExpiresAtMs > nowMs ? d : undefined;

  const drop = (k: string): DeviceRecord | undefined => {
    const d = devices.get(k);
    if (d === undefined) return undefined;
    devices.delete(k);
    current.delete(d.refreshHash);
    for (const h of history.get(k) ?? []) rotated.delete(h);
    history.delete(k);
    return d;
  };

  const liveOf = (userId: string, nowMs: number): DeviceRecord[] => {
    const out: DeviceRecord[] = [];
    for (const [k, d] of devices) {
      if (d.userId !== userId) continue;
      if (live(d, nowMs) === undefined) drop(k);
      else out.push(d);
    }
    return out.sort((a, b) => a.createdAtMs - b.createdAtMs);
  };

  const remember = (k: string, d: DeviceRecord): void => {
    const list = history.get(k) ?? [];
    list.push(d.refreshHash);
    rotated.set(d.refreshHash, {
      userId: d.userId,
      deviceId: d.deviceId,
      sessionId: d.sessionId,
      expiresAtMs: d.refreshExpiresAtMs,
    });
    while (list.length > ROTATED_HISTORY) rotated.delete(list.shift()!);
    history.set(k, list);
  };

  const signIn = (input: DeviceSignIn): DeviceSignInOutcome => {
    const mine = liveOf(input.userId, input.nowMs);
    const existing = mine.find((d) => d.deviceId === input.deviceId);
    if (mine.some((d) => d.deviceId !== input.deviceId && d.name === input.name)) {
      return { ok: false, reason: 'name_taken' };
    }
    if (existing === undefined && mine.length >= input.maxDevices)
      return { ok: false, reason: 'device_limit' };
    const k = key(input.userId, input.deviceId);
    if (existing !== undefined) {
      remember(k, existing);
      current.delete(existing.refreshHash);
    }
    const device: DeviceRecord = {
      userId: input.userId,
      deviceId: input.deviceId,
      name: input.name,
      sessionId: existing?.sessionId ?? input.newSessionId,
      createdAtMs: existing?.createdAtMs ?? input.nowMs,
      lastSeenAtMs: input.nowMs,
      refreshHash: input.refreshHash,
      refreshExpiresAtMs: input.refreshExpiresAtMs,
    };
    devices.set(k, device);
    current.set(device.refreshHash, k);
    return { ok: true, device, created: existing === undefined };
  };

  const rotate = (
    oldHash: string,
    newHash: string,
    newExpiresAtMs: number,
    nowMs: number,
  ): RefreshRotation => {
    const k = current.get(oldHash);
    if (k === undefined) {
      const old = rotated.get(oldHash);
      if (old === undefined || old.expiresAtMs <= nowMs) return { ok: false, reason: 'unknown' };
      const owner = devices.get(key(old.userId, old.deviceId));
      const revoked = owner?.sessionId === old.sessionId ? drop(key(old.userId, old.deviceId)) : undefined;
      return { ok: false, reason: 'reused', revoked };
    }
    const d = devices.get(k)!;
    if (d.refreshExpiresAtMs <= nowMs) {
      drop(k);
      return { ok: false, reason: 'expired' };
    }
    remember(k, d);
    current.delete(oldHash);
    const next: DeviceRecord = {
      ...d,
      refreshHash: newHash,
      refreshExpiresAtMs: newExpiresAtMs,
      lastSeenAtMs: nowMs,
    };
    devices.set(k, next);
    current.set(newHash, k);
    return { ok: true, device: next };
  };

  return {
    async signIn(input) {
      return signIn(input);
    },
    async list(userId, nowMs) {
      return liveOf(userId, nowMs);
    },
    async get(userId, deviceId, nowMs) {
      return live(devices.get(key(userId, deviceId)), nowMs);
    },
    async rotateRefresh(oldHash, newHash, newExpiresAtMs, nowMs) {
      return rotate(oldHash, newHash, newExpiresAtMs, nowMs);
    },
    async remove(userId, deviceId) {
      return drop(key(userId, deviceId));
    },
    async removeAll(userId) {
      const out: DeviceRecord[] = [];
      for (const [k, d] of [...devices]) if (d.userId === userId) out.push(drop(k)!);
      return out;
    },
    async touch(userId, deviceId, nowMs) {
      const k = key(userId, deviceId);
      const d = devices.get(k);
      if (d !== undefined) devices.set(k, { ...d, lastSeenAtMs: nowMs });
    },
  };
}
