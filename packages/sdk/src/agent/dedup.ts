/**
 * De-duplication of events for both transports, over the webhook receiver's
 * {@link DedupStore}: one store serves the WebSocket and the webhook, so a
 * switch between modes keeps what was already handled.
 *
 * Two keys per event:
 * - the delivery id, exactly as the webhook receiver claims it (so a
 *   delivery seen on one transport is known on the other);
 * - the signed message id of a sealed event, as `msg:<sender>:<message id>`
 *   (so a second delivery of the same message, under a new delivery id, is
 *   skipped too).
 *
 * A store that fails (throws, or times out) stops the event: the claim is
 * `unavailable`, the handler does not run, and the delivery is not
 * acknowledged, so the service delivers it again — a handler never runs
 * unclaimed.
 *
 * Claims are leased. With a store that can renew (`DedupStore.renew`: the
 * in-memory and Redis stores), a claim is renewed every third of its lease
 * while it is held, so a handler running for ten minutes keeps its claim
 * while the claim of a process that died lapses one lease later (15 s by
 * default). A renewal that finds the claim gone is logged once; the handler
 * runs on and the renewals go on (a Redis store that lost its keys writes
 * the claim back). A store that answers "full" lets the event through without
 * de-duplication (at least once rather than at most once), with a warning.
 *
 * @module
 */
import { systemClock, type Clock, type TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { DedupStore } from '../webhook/dedup/types.js';

/** The token under which this process holds a key (replaced when it takes a lapsed claim again). */
interface Hold {
  token: string;
}

/** A claim this caller owns. */
export interface OwnedClaim {
  /** Marks the id handled (later copies are skipped). Never throws. */
  complete(): Promise<void>;
  /** Gives the id back so a later copy is handled. Never throws. */
  release(): Promise<void>;
}

/** Outcome of a claim. */
export type ClaimOutcome =
  | { readonly status: 'claimed'; readonly claim: OwnedClaim }
  /** Handled already, or being handled right now: skip this copy. */
  | { readonly status: 'duplicate'; readonly state: 'completed' | 'in_flight' }
  /** The store could not answer: do not handle the event now (it must come again). */
  | { readonly status: 'unavailable' }
  /**
   * Another process holds the claim (a replica, or a process that died
   * handling it): ask again later; it completes, or lapses after its lease.
   */
  | { readonly status: 'contended' };

/** The event de-duplicator. */
export interface EventDedup {
  /** Claims a delivery id. */
  claimDelivery(deliveryId: string): Promise<ClaimOutcome>;
  /** Claims the signed message id of a sealed event. */
  claimMessage(senderId: string, messageId: string): Promise<ClaimOutcome>;
}

/** Options of {@link createEventDedup}. */
export interface EventDedupOptions {
  readonly store: DedupStore;
  /** How long a claim protects an event being handled. */
  readonly leaseMs: number;
  readonly logger: Logger;
  /** Timers of the lease renewals. @defaultValue `systemClock` */
  readonly clock?: Clock;
}

/** The store key of a message id. */
export function messageDedupKey(senderId: string, messageId: string): string {
  return `msg:${senderId}:${messageId}`;
}

/** A claim that owns nothing (used when the store could not be asked). */
const UNTRACKED: OwnedClaim = Object.freeze({
  complete: () => Promise.resolve(),
  release: () => Promise.resolve(),
});

/**
 * Creates the de-duplicator over `store`.
 *
 * @example
 * ```ts
 * const dedup = createEventDedup({ store: createMemoryDedupStore(), leaseMs: 600_000, logger });
 * const c = await dedup.claimDelivery(frame.delivery_id);
 * if (c.status === 'claimed') { await handle(); await c.claim.complete(); }
 * ```
 */
export function createEventDedup(options: EventDedupOptions): EventDedup {
  const { store, leaseMs, logger } = options;
  const clock = options.clock ?? systemClock;
  const renewEveryMs = Math.max(1, Math.floor(leaseMs / 3));

  /** Keeps the claim of `key` alive until the returned stop function is called. */
  const keepAlive = (key: string, hold: Hold): (() => void) => {
    const renew = store.renew?.bind(store);
    if (renew === undefined) return () => undefined;
    let timer: TimerHandle | undefined;
    let stopped = false;
    let lapsed = false;
    const tick = (): void => {
      timer = undefined;
      void Promise.resolve()
        .then(() => renew(key, hold.token, leaseMs))
        .then(
          (owned) => {
            if (!owned && !stopped && !lapsed) logger.warn('a claim lapsed while its handler ran', { key });
            lapsed = !owned;
          },
          (error: unknown) => {
            logger.warn('the de-duplication store failed to renew a claim', {
              error: (error as Error)?.name,
            });
          },
        )
        .then(() => {
          // Renewed on even after a failed renewal: a store that lost its keys writes the claim back
          // (redis-recovery.ts), and a renewal of a claim another process took changes nothing.
          if (!stopped) timer = clock.setTimeout(tick, renewEveryMs, { background: true });
        });
    };
    timer = clock.setTimeout(tick, renewEveryMs, { background: true });
    return () => {
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    };
  };

  // Keys this process claimed and has not settled: an `in_flight` answer for one of
  // these is a copy of an event being handled here; for any other key, another
  // process holds the claim. The token changes when the claim lapsed and this process took it again.
  const held = new Map<string, Hold>();
  const owned = (key: string, hold: Hold): OwnedClaim => {
    held.set(key, hold);
    const stop = keepAlive(key, hold);
    const settle = (): void => {
      stop();
      if (held.get(key) === hold) held.delete(key);
    };
    return {
      async complete() {
        settle();
        try {
          await store.complete(key, hold.token);
        } catch (error) {
          logger.warn('the de-duplication store failed to record a completion', {
            error: (error as Error)?.name,
          });
        }
      },
      async release() {
        settle();
        try {
          await store.release(key, hold.token);
        } catch (error) {
          logger.warn('the de-duplication store failed to release a claim', {
            error: (error as Error)?.name,
          });
        }
      },
    };
  };

  const claim = async (key: string): Promise<ClaimOutcome> => {
    let result;
    try {
      result = await store.claim(key, leaseMs);
    } catch (error) {
      logger.warn('the de-duplication store failed; the event waits for its redelivery', {
        error: (error as Error)?.name,
      });
      return { status: 'unavailable' };
    }
    switch (result.status) {
      case 'claimed': {
        const mine = held.get(key);
        if (mine !== undefined) {
          // This process still holds the key for an event waiting its turn, but the claim lapsed (a
          // store without renewals, or one that was unreachable longer than the lease): the claim just
          // taken becomes that event's again, and this copy is a duplicate of it.
          mine.token = result.token;
          logger.warn('a claim this process held had lapsed; it holds it again', { key });
          return { status: 'duplicate', state: 'in_flight' };
        }
        return { status: 'claimed', claim: owned(key, { token: result.token }) };
      }
      case 'completed':
        return { status: 'duplicate', state: 'completed' };
      case 'in_flight':
        return held.has(key) ? { status: 'duplicate', state: 'in_flight' } : { status: 'contended' };
      case 'recovering':
        // Redis lost its keys; the copies write back what they handled before anyone claims again.
        logger.debug('the de-duplication store is recovering; the event waits', { key });
        return { status: 'unavailable' };
      default:
        logger.warn('the de-duplication store is full; handling the event without de-duplication');
        return { status: 'claimed', claim: UNTRACKED };
    }
  };

  return {
    claimDelivery: (deliveryId) => claim(deliveryId),
    claimMessage: (senderId, messageId) => claim(messageDedupKey(senderId, messageId)),
  };
}
