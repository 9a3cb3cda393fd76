/**
 * Status ("working…", "searching the web…"): an ephemeral, sealed signal from
 * an agent to the other members of a conversation (issue #26).
 *
 * | payload `type` | sealed as | What |
 * |---|---|---|
 * | `status` | `status.update` | {@link StatusPayload}: `working` with an optional text and a time to live, or `idle` |
 *
 * The payload travels inside the end-to-end envelope, sealed as
 * `status.update` and posted to the `setStatus` route; the service relays the
 * envelope to the members' open WebSockets and stores nothing, so it sees
 * that a status exists, never its text. Receivers show it until its
 * `ttl_ms` runs out, until an `idle` status, or until the sender's next
 * message in the conversation (the reply clears it). docs/agent.md
 * ("Status") has the rate limits and the keep-alive.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { parseWith } from './parse.js';
import type { SameType } from './same-type.js';

/** Bounds and defaults of a status (gap decisions in docs/agent.md). */
export const STATUS_LIMITS = Object.freeze({
  /** Longest status text, in characters. */
  maxTextChars: 200,
  /** Shortest time to live a sender may ask for, ms. */
  minTtlMs: 1_000,
  /** Longest time to live a sender may ask for (receivers clamp to it), ms. */
  maxTtlMs: 60_000,
  /** Time to live of a `working` status that names none, ms. */
  defaultTtlMs: 15_000,
  /** Server limit: at most this many status posts per sender and conversation … */
  serverLimit: 4,
  /** … in any window of this many ms (429 `RATE_LIMITED` beyond). */
  serverWindowMs: 2_000,
  /** Client coalescing: at most one post per conversation in this many ms (latest state wins). */
  clientMinIntervalMs: 1_000,
});

/** The sealed payload of a status update. */
export const StatusPayloadSchema = z.strictObject({
  type: z.literal('status'),
  /** `working`: show an indicator (with `text` when given); `idle`: clear it. */
  state: z.enum(['working', 'idle']),
  /** What the agent is doing, e.g. `searching the web…`. Absent: a plain "working" indicator. */
  text: z.string().min(1).max(STATUS_LIMITS.maxTextChars).optional(),
  /** How long receivers show a `working` status without a refresh, ms. @defaultValue 15 000 */
  ttl_ms: z.number().int().min(STATUS_LIMITS.minTtlMs).max(STATUS_LIMITS.maxTtlMs).optional(),
});
/** The sealed payload of a status update (`type: 'status'`). */
export type StatusPayload = {
  type: 'status';
  /** `working`: show an indicator; `idle`: clear it. */
  state: 'working' | 'idle';
  /** What the agent is doing; absent for a plain indicator. */
  text?: string | undefined;
  /** How long to show it without a refresh, ms (1 000 to 60 000). */
  ttl_ms?: number | undefined;
};
true satisfies SameType<z.output<typeof StatusPayloadSchema>, StatusPayload>;

/**
 * Validates a status payload (e.g. the opened plaintext of a `status.update`).
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 */
export function parseStatusPayload(input: unknown): StatusPayload {
  return parseWith(StatusPayloadSchema, input, 'status');
}

/** Body of the `setStatus` route: the sealed `status.update` envelope. */
export const StatusRequestSchema = z.strictObject({
  wire_envelope: z.string().min(1),
});
/** Body of the `setStatus` route. */
export type StatusRequest = z.output<typeof StatusRequestSchema>;

/** Answer of the `setStatus` route (202): whether any other member had an open WebSocket. */
export const StatusAnswerSchema = z.looseObject({ delivered: z.boolean() });
/** Answer of the `setStatus` route. */
export type StatusAnswer = z.output<typeof StatusAnswerSchema>;
