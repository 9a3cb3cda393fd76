/**
 * Turn control payloads (issue #26): the human stops the agent's running
 * turn, the agent answers that it stopped. Both travel as message payloads
 * inside the end-to-end envelope, so they are sealed to the members and
 * signed by the sender: the service can neither read nor forge them, and a
 * replayed copy is a duplicate message id.
 *
 * - `turn.stop` (human → agent): `{ type, stop_id }`.
 * - `turn.stopped` (agent → human): `{ type, stop_id, stopped }`, `stopped`
 *   being how many running turns the stop aborted (0 when none ran).
 *
 * An agent without this SDK version receives `turn.stop` as a message of a
 * kind it does not know (kept as-is, see `MessagePayload`).
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { IdentifierSchema } from './primitives.js';

/** The payload `type` of a stop request. */
export const TURN_STOP_TYPE = 'turn.stop';
/** The payload `type` of the agent's answer to a stop. */
export const TURN_STOPPED_TYPE = 'turn.stopped';

/** A stop request (human → agent). */
export const TurnStopPayloadSchema = z.looseObject({
  type: z.literal(TURN_STOP_TYPE),
  /** Chosen by the human's client; echoed in the answer. */
  stop_id: IdentifierSchema,
});
/** A stop request payload. */
export type TurnStopPayload = z.output<typeof TurnStopPayloadSchema>;

/** The agent's answer to a stop (agent → human). */
export const TurnStoppedPayloadSchema = z.looseObject({
  type: z.literal(TURN_STOPPED_TYPE),
  stop_id: IdentifierSchema,
  /** Running turns the stop aborted. */
  stopped: z.number().int().min(0).max(1_000_000),
});
/** The answer payload. */
export type TurnStoppedPayload = z.output<typeof TurnStoppedPayloadSchema>;

/** The stop request in `payload`, or undefined when it is not a valid one. */
export function readTurnStop(payload: unknown): TurnStopPayload | undefined {
  const r = TurnStopPayloadSchema.safeParse(payload);
  return r.success ? r.data : undefined;
}

/** The stop answer in `payload`, or undefined when it is not a valid one. */
export function readTurnStopped(payload: unknown): TurnStoppedPayload | undefined {
  const r = TurnStoppedPayloadSchema.safeParse(payload);
  return r.success ? r.data : undefined;
}
