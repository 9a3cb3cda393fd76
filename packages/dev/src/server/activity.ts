/**
 * The reference server's activity feed: one record per HTTP request and per
 * delivery step, for a request log (`ams serve --dev`). Records hold ids,
 * methods, paths (never the query), status codes and counts only: never
 * tokens, passwords or bodies.
 *
 * @module
 */

/** One HTTP request answered by the server. */
export interface RequestActivity {
  readonly kind: 'request';
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  readonly status: number;
  /** The calling agent, for requests authenticated with an agent token. */
  readonly agentId?: string | undefined;
  /** Milliseconds from dispatch to the answer (real time). */
  readonly durationMs: number;
}

/** A step of a delivery to an agent (an attempt failed, a final status, a drop …). */
export interface DeliveryActivity {
  readonly kind: 'delivery';
  /** What happened, e.g. `delivery.delivered`, `delivery.attempt_failed`, `delivery.dropped`. */
  readonly event: string;
  readonly agentId?: string | undefined;
  readonly deliveryId?: string | undefined;
  /** The attempt number (for one attempt) or the attempts made (for a final status). */
  readonly attempt?: number | undefined;
  /** Why an attempt failed or a delivery was dropped (`timeout`, `http_500`, `unknown_agent` …). */
  readonly reason?: string | undefined;
}

/** A record of the activity feed. */
export type ServerActivity = RequestActivity | DeliveryActivity;

/** Receives activity records; a throwing listener is ignored. */
export type ActivityListener = (activity: ServerActivity) => void;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/**
 * The delivery engine's log line as an activity record: only ids, counts and
 * error classes are copied.
 */
export function deliveryActivity(
  event: string,
  fields: Readonly<Record<string, unknown>> = {},
): DeliveryActivity {
  return {
    kind: 'delivery',
    event,
    agentId: str(fields['agent_id']),
    deliveryId: str(fields['delivery_id']),
    attempt: num(fields['attempt']) ?? num(fields['attempts']),
    reason: str(fields['error_class']) ?? str(fields['reason']),
  };
}

/** Calls `listener` (when there is one), ignoring what it throws. */
export function emitActivity(listener: ActivityListener | undefined, activity: ServerActivity): void {
  if (listener === undefined) return;
  try {
    listener(activity);
  } catch {
    // A log listener must not break a request or a delivery.
  }
}
