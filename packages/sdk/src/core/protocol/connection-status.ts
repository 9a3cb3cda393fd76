/**
 * The agent's `connection_status` and the answer of
 * `POST /agents/:id/connection/recover`.
 *
 * Known values are `ready` and `unreachable`; other values are not shown, so
 * the schema accepts any non-empty string and {@link isKnownConnectionStatus}
 * tells the two known ones apart.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { parseWith } from './parse.js';
import type { SameType } from './same-type.js';

/** The connection statuses the service names. */
export const CONNECTION_STATUSES = ['ready', 'unreachable'] as const;
/** A known connection status. */
export type KnownConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/**
 * `connection_status` of an agent: `ready`, `unreachable`, or a value this
 * SDK does not know yet (kept as-is).
 */
export const ConnectionStatusSchema = z
  .string()
  .min(1)
  .max(64)
  .transform((s) => s as KnownConnectionStatus | (string & {}));
/** An agent's connection status. */
export type ConnectionStatus = KnownConnectionStatus | (string & {});
true satisfies SameType<z.output<typeof ConnectionStatusSchema>, ConnectionStatus>;

/** True for `ready` or `unreachable`. */
export function isKnownConnectionStatus(value: unknown): value is KnownConnectionStatus {
  return value === 'ready' || value === 'unreachable';
}

/**
 * `data` of `POST /agents/:id/connection/recover`: `pending_count` (messages
 * flushed from the pending queue). Other fields are not shown and are kept.
 */
export const RecoverConnectionResultSchema = z.looseObject({
  pending_count: z.int().min(0),
});
/** The answer of a connection recovery. */
export type RecoverConnectionResult = z.output<typeof RecoverConnectionResultSchema>;

/**
 * Validates the answer of a connection recovery.
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 */
export function parseRecoverConnectionResult(input: unknown): RecoverConnectionResult {
  return parseWith(RecoverConnectionResultSchema, input, 'connection recovery result');
}
