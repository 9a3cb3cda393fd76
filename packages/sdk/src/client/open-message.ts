/**
 * Opening a received envelope as a user: decrypt with the user's X25519
 * pair, verify the signature with the sender's Ed25519 key from the
 * {@link KeyDirectory} (`GET /keys/:id` for agents, `GET /system/keys` for
 * the system sender).
 *
 * When the signature does not verify with the cached key, the sender may
 * have rotated: its directory entry is dropped and its current key is tried
 * once more, then its retired signing keys in grace, each only for messages
 * created before its retirement (as the Agent, see `retired-signing.ts`). A
 * message that still fails is reported, never thrown past the caller's loop.
 *
 * The signed ids (sender, conversation, message, time) are authoritative;
 * a delivery's `metadata` is not. A message whose signed conversation id is
 * not the one it was delivered for is refused (`INVALID_ENVELOPE`). A live
 * delivery is also checked like the Agent does (`delivery-checks.ts`): its
 * type against the signed event type and sender (reason `event_type`), its
 * signed `created_at` against the acceptance window (reason `stale`). Inbox
 * reads are history: only the signed type and sender are checked.
 *
 * @module
 */
import type { ReplyReference } from '../core/protocol/replies.js';
import { CryptoError } from '../core/errors/crypto-error.js';
import { isCryptoError } from '../core/errors/guards.js';
import { keyFingerprint, type KeyPair } from '../crypto/keys.js';
import { ghostKeyWarning, type KeyWarning } from '../messaging/ghost-keys.js';
import { openAsync } from '../crypto/open.js';
import type { OpenedEnvelope } from '../crypto/open-options.js';
import { parseMessagePayload, type MessagePayload } from '../core/protocol/payloads.js';
import { SYSTEM_SENDER_ID, type DeliveryFailedPayload } from '../core/protocol/system-events.js';
import type { KeyDirectory } from '../messaging/key-directory.js';
import { deliveryRefusal } from '../messaging/delivery-checks.js';
import { openWithRetiredKeys } from '../messaging/retired-signing.js';
import {
  attributeForward,
  rememberWireEnvelope,
  type ForwardAttribution,
} from '../messaging/forward-attribution.js';

/** A message the user received and opened. */
export interface ReceivedMessage {
  /** What carried it: `message.new`, `delivery.failed` (a system notice), or `inbox` (read with `messages()`). */
  readonly event: string;
  /** The signed message id. */
  readonly messageId: string;
  /** The signed conversation id. */
  readonly conversationId: string;
  /** The signed sender id (`system` for service notices). */
  readonly senderId: string;
  /** The signed creation time, ISO 8601 UTC with milliseconds. */
  readonly createdAt: string;
  /** Inbox cursor, when the service gave one. */
  readonly seq: number | undefined;
  /**
   * The decrypted payload, e.g. `{ type: 'text', text: 'hi' }`: a peer's
   * {@link MessagePayload} (checked as the Agent checks it), or a service
   * notice from `system` (`type: 'delivery.failed'`). `switch
   * (msg.payload.type)` narrows; keep a `default:` branch for kinds a newer
   * service or SDK adds (delivered as they came).
   */
  readonly payload: MessagePayload | DeliveryFailedPayload;
  /**
   * For a forwarded copy (`payload.type === 'forwarded'`): who the original
   * is from, and whether that is verified against the original sender's key
   * (`forwarded.verified`) or only the forwarder's claim. Absent otherwise.
   */
  readonly forwarded?: ForwardAttribution;
  /**
   * The message this one answers (its sealed `reply_to`), with the quoted
   * text when this client saw that text message in the conversation.
   */
  readonly replyTo?: ReplyReference;
}

/** What opening needs. */
export interface OpenContext {
  /** The user's id (the recipient id in envelopes). */
  readonly recipientId: string;
  /** The user's X25519 pair(s). */
  readonly keys: readonly KeyPair[];
  readonly directory: KeyDirectory;
  /** Open legacy v1.0 envelopes (an opt-in for a migration period). @defaultValue `false` */
  readonly acceptLegacyV10?: boolean;
  /** Told when an accepted envelope lists a key under the user's id that is not one of `keys` (a ghost). */
  readonly onKeyWarning?: (warning: KeyWarning) => void;
}

/** Where a message came from (unsigned; checked against the envelope). */
export interface Delivery {
  readonly event: string;
  readonly conversationId: string;
  readonly seq: number | undefined;
  /**
   * Receipt time of a live delivery (ms since the epoch): the signed
   * `created_at` must lie in the acceptance window around it. Undefined for
   * inbox reads, whose `event` (`inbox`) names no delivery type either.
   */
  readonly receivedAtMs?: number | undefined;
}

async function openWithRotation(wire: string, c: OpenContext): Promise<OpenedEnvelope> {
  let senderId: string | undefined;
  try {
    return await openAsync(wire, {
      recipientId: c.recipientId,
      keys: c.keys,
      acceptLegacyV10: c.acceptLegacyV10 ?? false,
      senderKey: (id) => {
        senderId = id;
        return c.directory.signingKey(id);
      },
    });
  } catch (err) {
    // A key change refused by the pins (keyChangePolicy 'block') is reported as itself.
    if (isCryptoError(err) && isCryptoError(err.cause, 'KEY_CHANGED')) throw err.cause;
    if (!isCryptoError(err, 'DECRYPT_FAILURE') || err.reason !== 'signature' || senderId === undefined)
      throw err;
    c.directory.invalidate(senderId);
    const options = { recipientId: c.recipientId, keys: c.keys, acceptLegacyV10: c.acceptLegacyV10 ?? false };
    const current = await c.directory.signingKey(senderId).catch((e: unknown) => {
      if (isCryptoError(e, 'KEY_CHANGED')) throw e;
      return undefined;
    });
    if (current !== undefined) {
      try {
        return await openAsync(wire, { ...options, senderKey: current });
      } catch {
        // not the current key either: try the retired ones
      }
    }
    const retired = await c.directory.retiredSigningKeys(senderId).catch(() => []);
    const opened = await openWithRetiredKeys(wire, options, retired);
    if (opened !== undefined) return opened;
    throw err;
  }
}

/**
 * Opens one delivered envelope.
 *
 * @throws {@link CryptoError} `DECRYPT_FAILURE` (with `reason`, including
 *   `event_type` and, for a live delivery, `stale`) or `INVALID_ENVELOPE`
 *   (malformed, or signed for another conversation).
 */
export async function openDelivered(
  wire: string,
  delivery: Delivery,
  c: OpenContext,
): Promise<ReceivedMessage> {
  const opened = await openWithRotation(wire, c);
  if (opened.conversationId !== delivery.conversationId) {
    throw new CryptoError({
      code: 'INVALID_ENVELOPE',
      message: 'The envelope is signed for another conversation than the one it was delivered in.',
    });
  }
  const live = delivery.receivedAtMs !== undefined;
  const refused = deliveryRefusal(opened, live ? delivery.event : undefined, delivery.receivedAtMs);
  if (refused !== undefined) throw refused;
  if (c.onKeyWarning !== undefined) {
    const own = new Set(c.keys.map((k) => keyFingerprint(k.publicKey)));
    const warning = ghostKeyWarning(opened, c.recipientId, own);
    if (warning !== undefined) c.onKeyWarning(warning);
  }
  const forwarded = await attributeForward(opened.payload, opened.senderId, (id) =>
    c.directory.signingKey(id),
  );
  const message: ReceivedMessage = {
    event: delivery.event,
    messageId: opened.messageId,
    conversationId: opened.conversationId,
    senderId: opened.senderId,
    createdAt: opened.createdAt,
    seq: delivery.seq,
    // A peer's payload is checked as the Agent checks it (a malformed one is refused with a
    // ValidationError); the service's notices are kept as they came (their kinds are the service's).
    payload:
      opened.senderId === SYSTEM_SENDER_ID
        ? (opened.payload as DeliveryFailedPayload)
        : parseMessagePayload(opened.payload),
    ...(forwarded === undefined ? {} : { forwarded }),
  };
  rememberWireEnvelope(message, wire);
  return message;
}
