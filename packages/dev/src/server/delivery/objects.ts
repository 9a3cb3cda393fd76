/**
 * Oversize payloads stored as objects (`GET /r2/<object_key>`). An object
 * lives while its delivery is pending and for {@link OBJECT_TTL_AFTER_DELIVERY_MS}
 * after the delivery left the queue (delivered, failed or expired), so a
 * receiver that handles a delivery late can still fetch it.
 *
 * @module
 */
import type { Clock } from 'agent-messaging-sdk/protocol';
import { newObjectKey } from './ids.js';
import type { StoredObject } from './types.js';

/** How long an object outlives its delivery: 24 h (the receivers' de-duplication window). */
export const OBJECT_TTL_AFTER_DELIVERY_MS = 24 * 60 * 60 * 1000;

/** Media type of stored ciphertext. */
export const OBJECT_CONTENT_TYPE = 'application/octet-stream';

interface Entry {
  readonly object: StoredObject;
  /** Infinity while the delivery is pending. */
  expiresAtMs: number;
}

/** The object store of the engine (in memory). */
export class ObjectStore {
  readonly #clock: Clock;
  readonly #objects = new Map<string, Entry>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Stores bytes for an agent and returns the new, unguessable key. */
  put(agentId: string, bytes: Uint8Array, contentType: string = OBJECT_CONTENT_TYPE): string {
    this.#sweep();
    const key = newObjectKey();
    this.#objects.set(key, { object: { bytes, contentType, agentId }, expiresAtMs: Infinity });
    return key;
  }

  /** The object, unless unknown or expired. */
  get(key: string): StoredObject | undefined {
    const entry = this.#objects.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs <= this.#clock.now()) {
      this.#objects.delete(key);
      return undefined;
    }
    return entry.object;
  }

  /** The delivery left the queue: the object expires 24 h from now. */
  release(key: string): void {
    const entry = this.#objects.get(key);
    if (entry !== undefined) entry.expiresAtMs = this.#clock.now() + OBJECT_TTL_AFTER_DELIVERY_MS;
  }

  /** Deletes every object of the agent. */
  forgetAgent(agentId: string): void {
    for (const [key, entry] of this.#objects) if (entry.object.agentId === agentId) this.#objects.delete(key);
  }

  /** Number of objects held (expired ones included until swept). */
  get size(): number {
    return this.#objects.size;
  }

  #sweep(): void {
    const now = this.#clock.now();
    for (const [key, entry] of this.#objects) if (entry.expiresAtMs <= now) this.#objects.delete(key);
  }
}
