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
  readonly deviceKey: string;
  readonly sessionId: string;
  readonly expiresAtMs: number;
}

const keyOf = (userId: string, deviceId: string): string => `${userId}\u0000${deviceId}`;

/** The in-memory {@link DeviceStore}. */
class MemoryDeviceStore implements DeviceStore {
  readonly #devices = new Map<string, DeviceRecord>();
  /** Current refresh hash → device key. */
  readonly #current = new Map<string, string>();
  /** Rotated-out refresh hash → its owner. */
  readonly #rotated = new Map<string, RotatedToken>();
  /** Device key → its rotated hashes, oldest first. */
  readonly #history = new Map<string, string[]>();

  async signIn(input: DeviceSignIn): Promise<DeviceSignInOutcome> {
    const mine = this.#liveOf(input.userId, input.nowMs);
    const existing = mine.find((d) => d.deviceId === input.deviceId);
    if (mine.some((d) => d.deviceId !== input.deviceId && d.name === input.name)) {
      return { ok: false, reason: 'name_taken' };
    }
    if (existing === undefined && mine.length >= input.maxDevices)
      return { ok: false, reason: 'device_limit' };
    const k = keyOf(input.userId, input.deviceId);
    if (existing !== undefined) this.#retire(k, existing);
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
    this.#devices.set(k, device);
    this.#current.set(device.refreshHash, k);
    return { ok: true, device, created: existing === undefined };
  }

  async list(userId: string, nowMs: number): Promise<readonly DeviceRecord[]> {
    return this.#liveOf(userId, nowMs);
  }

  async get(userId: string, deviceId: string, nowMs: number): Promise<DeviceRecord | undefined> {
    const d = this.#devices.get(keyOf(userId, deviceId));
    return d !== undefined && d.refreshExpiresAtMs > nowMs ? d : undefined;
  }

  async rotateRefresh(
    oldHash: string,
    newHash: string,
    newExpiresAtMs: number,
    nowMs: number,
  ): Promise<RefreshRotation> {
    const k = this.#current.get(oldHash);
    if (k === undefined) return this.#rotatedOut(oldHash, nowMs);
    const d = this.#devices.get(k)!;
    if (d.refreshExpiresAtMs <= nowMs) {
      this.#drop(k);
      return { ok: false, reason: 'expired' };
    }
    this.#retire(k, d);
    const next: DeviceRecord = {
      ...d,
      refreshHash: newHash,
      refreshExpiresAtMs: newExpiresAtMs,
      lastSeenAtMs: nowMs,
    };
    this.#devices.set(k, next);
    this.#current.set(newHash, k);
    return { ok: true, device: next };
  }

  async remove(userId: string, deviceId: string): Promise<DeviceRecord | undefined> {
    return this.#drop(keyOf(userId, deviceId));
  }

  async removeAll(userId: string): Promise<readonly DeviceRecord[]> {
    const keys = [...this.#devices].filter(([, d]) => d.userId === userId).map(([k]) => k);
    return keys.map((k) => this.#drop(k)!);
  }

  /** A token that is not current: unknown, or rotated out (then the session is revoked). */
  #rotatedOut(hash: string, nowMs: number): RefreshRotation {
    const old = this.#rotated.get(hash);
    if (old === undefined || old.expiresAtMs <= nowMs) return { ok: false, reason: 'unknown' };
    const owner = this.#devices.get(old.deviceKey);
    const revoked = owner?.sessionId === old.sessionId ? this.#drop(old.deviceKey) : undefined;
    return { ok: false, reason: 'reused', revoked };
  }

  /** Moves a device's current refresh token into its rotated history. */
  #retire(k: string, d: DeviceRecord): void {
    this.#current.delete(d.refreshHash);
    const list = this.#history.get(k) ?? [];
    list.push(d.refreshHash);
    this.#rotated.set(d.refreshHash, {
      deviceKey: k,
      sessionId: d.sessionId,
      expiresAtMs: d.refreshExpiresAtMs,
    });
    while (list.length > ROTATED_HISTORY) this.#rotated.delete(list.shift()!);
    this.#history.set(k, list);
  }

  #drop(k: string): DeviceRecord | undefined {
    const d = this.#devices.get(k);
    if (d === undefined) return undefined;
    this.#devices.delete(k);
    this.#current.delete(d.refreshHash);
    for (const h of this.#history.get(k) ?? []) this.#rotated.delete(h);
    this.#history.delete(k);
    return d;
  }

  /** Live devices of a user, oldest first; expired ones are dropped on the way. */
  #liveOf(userId: string, nowMs: number): DeviceRecord[] {
    const out: DeviceRecord[] = [];
    for (const [k, d] of [...this.#devices]) {
      if (d.userId !== userId) continue;
      if (d.refreshExpiresAtMs <= nowMs) this.#drop(k);
      else out.push(d);
    }
    return out.sort((a, b) => a.createdAtMs - b.createdAtMs);
  }
}

/** Creates an empty in-memory {@link DeviceStore}. */
export function createMemoryDeviceStore(): DeviceStore {
  return new MemoryDeviceStore();
}
