/**
 * Opening a received envelope as a user: decrypt with the user's X25519
 * pair, verify the signature with the sender's Ed25519 key from the
 * {@link KeyDirectory} (`GET /keys/:id` for agents, `GET /system/keys` for
 * the system sender).
 *
 * When the signature does not verify with the cached key, the sender may
 * have rotated: its directory entry is dropped and every live signing key it
 * has (current, then those in grace) is tried once more. A message that
 * still fails is reported, never thrown past the caller's loop.
 *
 * The signed ids (sender, conversation, message, time) are authoritative;
 * a delivery's `metadata` is not. A message whose signed conversation id is
 * not the one it was delivered for is refused (`INVALID_ENVELOPE`).
 *
 * @module
 */
import { CryptoError } from '../core/errors/crypto-error.js';
import { isCryptoError } from '../core/errors/guards.js';
import type { KeyPair } from '../crypto/keys.js';
import { openAsync } from '../crypto/open.js';
import type { OpenedEnvelope } from '../crypto/open-options.js';
import type { EnvelopePayload } from '../crypto/payload.js';
import type { KeyDirectory } from '../agent/key-directory.js';

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
  /** The decrypted payload, e.g. `{ type: 'text', text: 'hi' }`. */
  readonly payload: EnvelopePayload;
}

/** What opening needs. */
export interface OpenContext {
  /** The user's id (the recipient id in envelopes). */
  readonly recipientId: string;
  /** The user's X25519 pair(s). */
  readonly keys: readonly KeyPair[];
  readonly directory: KeyDirectory;
}

/** Where a message came from (unsigned; checked against the envelope). */
export interface Delivery {
  readonly event: string;
  readonly conversationId: string;
  readonly seq: number | undefined;
}

async function openWithRotation(wire: string, c: OpenContext): Promise<OpenedEnvelope> {
  let senderId: string | undefined;
  try {
    return await openAsync(wire, {
      recipientId: c.recipientId,
      keys: c.keys,
      senderKey: (id) => {
        senderId = id;
        return c.directory.signingKey(id);
      },
    });
  } catch (err) {
    if (!isCryptoError(err, 'DECRYPT_FAILURE') || err.reason !== 'signature' || senderId === undefined)
      throw err;
    c.directory.invalidate(senderId);
    const candidates = await c.directory.signingKeys(senderId).catch(() => []);
    for (const key of candidates) {
      try {
        return await openAsync(wire, { recipientId: c.recipientId, keys: c.keys, senderKey: key });
      } catch {
        // try the next live key of this sender
      }
    }
    throw err;
  }
}

/**
 * Opens one delivered envelope.
 *
 * @throws {@link CryptoError} `DECRYPT_FAILURE` (with `reason`) or `INVALID_ENVELOPE`
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
  return {
    event: delivery.event,
    messageId: opened.messageId,
    conversationId: opened.conversationId,
    senderId: opened.senderId,
    createdAt: opened.createdAt,
    seq: delivery.seq,
    payload: opened.payload,
  };
}
