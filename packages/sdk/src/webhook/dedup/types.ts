/**
 * The de-duplication store contract shared by the in-memory and Redis stores.
 *
 * A delivery id moves through: absent → claimed (in flight, under a lease) →
 * completed (kept for the 24 h window) — or back to absent when the handler
 * fails and the claim is released, so the service's retry runs it again.
 *
 * @module
 */

/** The answer to {@link DedupStore.claim}. */
export type DedupClaimResult =
  /** This caller owns the delivery now; pass `token` to complete/release. */
  | { readonly status: 'claimed'; readonly token: string }
  /** Already handled within the window: acknowledge and skip. */
  | { readonly status: 'completed' }
  /** Another copy is being handled right now: answer a status the service retries. */
  | { readonly status: 'in_flight' }
  /** The store is at its bound and cannot take the id yet: answer a status the service retries. */
  | { readonly status: 'busy' }
  /**
   * The store lost its memory (Redis restarted empty) and waits while every
   * copy writes back what it handled: answer a status the service retries.
   */
  | { readonly status: 'recovering' };

/**
 * Atomic claim / complete / release of delivery ids. Methods may return a
 * value or a promise. Implementations must make `claim` atomic: of two
 * concurrent claims of one id, exactly one gets `claimed`.
 */
export interface DedupStore {
  /**
   * Claims `deliveryId` for `leaseMs`. After the lease the claim lapses, so a
   * receiver that died mid-handler does not block the id for 24 h.
   */
  claim(deliveryId: string, leaseMs: number): DedupClaimResult | Promise<DedupClaimResult>;
  /** Marks the id handled; later copies within the window are skipped. Idempotent. */
  complete(deliveryId: string, token: string): void | Promise<void>;
  /** Drops the claim so a retry can run the handler again. Ignored unless `token` still owns it. */
  release(deliveryId: string, token: string): void | Promise<void>;
  /**
   * Extends a claim `token` still owns to `leaseMs` from now; false when it
   * owns it no more (lapsed, released, completed). Optional: with it, the
   * Agent keeps a short lease alive while a handler runs, so a long handler
   * keeps its claim and a dead process's claim lapses within seconds.
   */
  renew?(deliveryId: string, token: string, leaseMs: number): boolean | Promise<boolean>;
}
