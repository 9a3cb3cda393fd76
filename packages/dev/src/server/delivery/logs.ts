/**
 * Delivery log entries per agent, kept 30 days on the engine's clock.
 *
 * An entry is written when a delivery reaches a final status. A delivery that
 * ended `unreachable` stays queued; when it is sent again after a recovery
 * (same delivery id), its entry is replaced, so there is still one entry per
 * delivery. "Newest first" means most recently completed first.
 *
 * @module
 */
import type { Clock } from 'agent-messaging-sdk/protocol';
import type { DeliveryFinalStatus, DeliveryLogEntry } from 'agent-messaging-sdk/protocol';
import { LIMITS } from 'agent-messaging-sdk/protocol';

/**
 * Entries kept per agent (oldest dropped first, in batches of 1 000 above
 * this); bounds the reference server's memory. `list` never returns more.
 */
export const MAX_LOG_ENTRIES_PER_AGENT = 10_000;
const LOG_TRIM_BATCH = 1_000;

/** What the engine knows when a delivery ends. */
export interface LogInput {
  readonly deliveryId: string;
  readonly agentId: string;
  readonly eventType: string;
  readonly createdAtMs: number;
  readonly attempts: number;
  readonly status: DeliveryFinalStatus;
  readonly errorClass?: string | undefined;
  /** True when the delivery may already have an entry (sent again after a recovery). */
  readonly replace?: boolean;
}

/** A compact entry (the wire form is built when listed: fewer strings held for 30 days). */
interface StoredEntry {
  readonly input: LogInput;
  readonly completedAtMs: number;
}

function toEntry({ input, completedAtMs }: StoredEntry): DeliveryLogEntry {
  const completed = Math.max(completedAtMs, input.createdAtMs);
  const base = {
    delivery_id: input.deliveryId,
    agent_id: input.agentId,
    event_type: input.eventType,
    created_at: new Date(input.createdAtMs).toISOString(),
    completed_at: new Date(completed).toISOString(),
    // 0 only for an event that expired in the queue before its first attempt.
    attempt_count: input.status === 'failed' ? input.attempts : Math.max(1, input.attempts),
  };
  if (input.status === 'delivered') {
    return { ...base, final_status: 'delivered', latency_ms: completed - input.createdAtMs };
  }
  if (input.status === 'failed') {
    return { ...base, final_status: 'failed', error_class: input.errorClass ?? 'unknown' };
  }
  return input.errorClass === undefined
    ? { ...base, final_status: 'unreachable' }
    : { ...base, final_status: 'unreachable', error_class: input.errorClass };
}

/** The delivery logs of every agent. */
export class DeliveryLogBook {
  readonly #clock: Clock;
  readonly #byAgent = new Map<string, StoredEntry[]>();
  readonly #onRecord: ((input: LogInput) => void) | undefined;

  /** @param onRecord - told of every entry written (the engine's replay bookkeeping). */
  constructor(clock: Clock, onRecord?: (input: LogInput) => void) {
    this.#clock = clock;
    this.#onRecord = onRecord;
  }

  /** Writes (or replaces) the entry of a delivery. */
  record(input: LogInput): void {
    const now = this.#clock.now();
    const list = this.#prune(input.agentId, now);
    if (input.replace === true) {
      const existing = list.findIndex((s) => s.input.deliveryId === input.deliveryId);
      if (existing >= 0) list.splice(existing, 1);
    }
    list.push({ input, completedAtMs: now });
    // Trim in batches so a full log does not shift 10 000 entries on every write.
    if (list.length >= MAX_LOG_ENTRIES_PER_AGENT + LOG_TRIM_BATCH) {
      list.splice(0, list.length - MAX_LOG_ENTRIES_PER_AGENT);
    }
    this.#byAgent.set(input.agentId, list);
    this.#onRecord?.(input);
  }

  /** Up to `limit` entries of the agent within 30 days, most recently completed first. */
  list(agentId: string, limit: number): DeliveryLogEntry[] {
    const list = this.#prune(agentId, this.#clock.now());
    const out: DeliveryLogEntry[] = [];
    for (let i = list.length - 1; i >= 0 && out.length < limit; i--) out.push(toEntry(list[i]!));
    return out;
  }

  /** The agent's entries of one delivery id (a replay adds one), oldest first. */
  entriesOf(agentId: string, deliveryId: string): DeliveryLogEntry[] {
    const list = this.#prune(agentId, this.#clock.now());
    return list.filter((s) => s.input.deliveryId === deliveryId).map(toEntry);
  }

  /** Drops the agent's entries. */
  forget(agentId: string): void {
    this.#byAgent.delete(agentId);
  }

  /** Removes entries completed more than 30 days ago (exactly 30 days is kept) (they are in completion order). */
  #prune(agentId: string, now: number): StoredEntry[] {
    const list = this.#byAgent.get(agentId) ?? [];
    const cutoff = now - LIMITS.DELIVERY_LOG_RETENTION_MS;
    let stale = 0;
    while (stale < list.length && list[stale]!.completedAtMs < cutoff) stale++;
    if (stale > 0) list.splice(0, stale);
    if (list.length === 0) this.#byAgent.delete(agentId);
    return list;
  }
}
