/**
 * De-duplication of what the user WebSocket delivers. With acknowledged
 * delivery a message whose ack was lost (the connection died first) comes
 * again on the next connection, with the same `delivery_id` and the same
 * signed message id; this remembers both for the most recent deliveries so
 * the copy is acknowledged without being emitted twice.
 *
 * Kept apart on purpose: replay protection (signed message ids) lives
 * elsewhere; this only turns redeliveries into exactly-once events.
 *
 * @module
 */

/** How many deliveries are remembered. @defaultValue 10 000 */
export const DELIVERY_DEDUP_CAPACITY = 10_000;

/** What identifies a delivery. */
export interface DeliveryKey {
  /** The service's `delivery_id`, when the connection has acks. */
  readonly deliveryId: string | undefined;
  readonly conversationId: string;
  /** The signed message id (of the opened envelope), or the frame's. */
  readonly messageId: string | undefined;
}

/** Remembers the last `capacity` deliveries (oldest forgotten first). */
export class DeliveryDedup {
  readonly #capacity: number;
  readonly #seen = new Map<string, true>();

  constructor(capacity = DELIVERY_DEDUP_CAPACITY) {
    this.#capacity = Math.max(1, Math.floor(capacity));
  }

  /** Keys remembered now. */
  get size(): number {
    return this.#seen.size;
  }

  /** True when the delivery id or the (conversation, message id) was seen before. */
  has(key: DeliveryKey): boolean {
    return keysOf(key).some((k) => this.#seen.has(k));
  }

  /** Remembers a delivery. */
  add(key: DeliveryKey): void {
    for (const k of keysOf(key)) {
      this.#seen.delete(k);
      this.#seen.set(k, true);
    }
    while (this.#seen.size > this.#capacity) {
      const oldest = this.#seen.keys().next().value;
      if (oldest === undefined) break;
      this.#seen.delete(oldest);
    }
  }
}

function keysOf(key: DeliveryKey): string[] {
  const keys: string[] = [];
  if (key.deliveryId !== undefined) keys.push(`d\u0000${key.deliveryId}`);
  if (key.messageId !== undefined) keys.push(`m\u0000${key.conversationId}\u0000${key.messageId}`);
  return keys;
}
