/**
 * The system sender: the identity the service seals its own events with
 * (exactly the types of `SYSTEM_SEALED_EVENT_TYPES`: relation.*,
 * agent.capability_changed, delivery.failed), so every delivery has one
 * shape and the SDK verifies them like any sender. Each envelope binds its
 * event type (v1.1), so receivers refuse it under any other type.
 *
 * - Sender id {@link SYSTEM_SENDER_ID} (`system`).
 * - Fresh X25519 and Ed25519 key pairs per server start; the public keys are
 *   served by `GET /system/keys` and `GET /keys/system`.
 * - Events that belong to no conversation use the conversation id
 *   {@link SYSTEM_CONVERSATION_ID} (`system`) in the envelope and the metadata.
 * - Envelopes are wrapped to every live key generation of the recipient
 *   (current and in grace), so a process still on the old keys during the
 *   7-day grace can open them.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from 'agent-messaging-sdk/protocol';
import { SYSTEM_SENDER_ID } from 'agent-messaging-sdk/protocol';
import { fromBase64, toBase64 } from 'agent-messaging-sdk/protocol';
import { generateKeys, keyFingerprint, type AgentKeys } from 'agent-messaging-sdk/protocol';
import { seal } from 'agent-messaging-sdk/protocol';
import type { EnvelopeRecipient } from 'agent-messaging-sdk/protocol';
import type { OutboundEvent } from '../delivery/types.js';

/** Sender id of events the service originates (defined once, in the core protocol model). */
export { SYSTEM_SENDER_ID };
/** Conversation id of system events that belong to no conversation. */
export const SYSTEM_CONVERSATION_ID = 'system';

/** The public face of the system sender (`GET /system/keys`). */
export interface SystemKeysView {
  readonly id: string;
  readonly kind: 'system';
  readonly public_key: string;
  readonly signing_public_key: string;
  readonly key_id: string;
  readonly signing_key_id: string;
}

/** A recipient of a system envelope: id plus every live X25519 public key (base64). */
export interface SystemRecipient {
  readonly id: string;
  readonly publicKeys: readonly string[];
}

/** Seals service-originated payloads. */
export interface SystemSender {
  readonly id: string;
  /** Public keys, wire form. */
  keys(): SystemKeysView;
  /**
   * Seals `payload` to `recipient` and wraps it as an {@link OutboundEvent}
   * of `type`; undefined when the recipient has no live key.
   */
  event(
    type: string,
    payload: Readonly<Record<string, unknown>>,
    recipient: SystemRecipient,
    conversationId?: string,
  ): OutboundEvent | undefined;
}

/** Creates the system sender with fresh keys. */
export function createSystemSender(clock: Clock, keys: AgentKeys = generateKeys()): SystemSender {
  const view: SystemKeysView = Object.freeze({
    id: SYSTEM_SENDER_ID,
    kind: 'system',
    public_key: toBase64(keys.encryption.publicKey),
    signing_public_key: toBase64(keys.signing.publicKey),
    key_id: keyFingerprint(keys.encryption.publicKey),
    signing_key_id: keyFingerprint(keys.signing.publicKey),
  });
  return {
    id: SYSTEM_SENDER_ID,
    keys: () => view,
    event(type, payload, recipient, conversationId = SYSTEM_CONVERSATION_ID) {
      const recipients: EnvelopeRecipient[] = [];
      for (const key of recipient.publicKeys) {
        const publicKey = fromBase64(key);
        if (publicKey !== undefined) recipients.push({ id: recipient.id, publicKey });
      }
      if (recipients.length === 0) return undefined;
      const messageId = randomUUID();
      const createdAt = new Date(clock.now()).toISOString();
      const wireEnvelope = seal(
        { ...payload },
        {
          sender: { id: SYSTEM_SENDER_ID, signing: keys.signing },
          recipients,
          conversationId,
          messageId,
          createdAt,
          eventType: type,
        },
      );
      return {
        type,
        wireEnvelope,
        metadata: { conversation_id: conversationId, sender_id: SYSTEM_SENDER_ID, created_at: createdAt },
        messageId,
      };
    },
  };
}
