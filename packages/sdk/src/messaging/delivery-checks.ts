/**
 * What the receivers check on an envelope that opened, before its message id
 * is claimed: the delivery's type fits the signed event type and sender (see
 * `sealedTypeProblem`; a system-signed payload must be one the service may
 * originate, `systemPayloadProblem`), and the signed `created_at` is inside the acceptance
 * window (see `freshnessFailure`). Both refusals are `DECRYPT_FAILURE`s
 * (reasons `event_type`, `stale`): the message is discarded, never retried.
 * Shared by the Agent pipeline and the UserClient.
 *
 * @module
 */
import type { CryptoError } from '../core/errors/crypto-error.js';
import { SYSTEM_SENDER_ID, sealedTypeProblem, systemPayloadProblem } from '../core/protocol/system-events.js';
import { decryptFailure } from '../crypto/envelope-errors.js';
import { freshnessFailure } from '../crypto/freshness.js';
import type { OpenedEnvelope } from '../crypto/open-options.js';

/**
 * The refusal of an opened envelope delivered as `deliveryType` at `nowMs`,
 * or `undefined` when it is acceptable. `deliveryType` undefined: the
 * delivery names no type (an inbox read); `nowMs` undefined: no freshness
 * check (history is not a delivery).
 */
export function deliveryRefusal(
  opened: Pick<OpenedEnvelope, 'senderId' | 'eventType' | 'createdAt' | 'payload'>,
  deliveryType: string | undefined,
  nowMs: number | undefined,
): CryptoError | undefined {
  const problem =
    sealedTypeProblem(deliveryType, opened) ??
    (opened.senderId === SYSTEM_SENDER_ID
      ? systemPayloadProblem(opened.eventType ?? deliveryType, opened.payload)
      : undefined);
  if (problem !== undefined) return decryptFailure('event_type', undefined, problem);
  return nowMs === undefined ? undefined : freshnessFailure(opened.createdAt, nowMs);
}
