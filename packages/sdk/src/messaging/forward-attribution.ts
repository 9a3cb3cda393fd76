/**
 * Who really wrote a forwarded message (security issue #24, item 8).
 *
 * A `forwarded` payload names an original sender, ids and payload. Without
 * a proof, all of that is the forwarder's word: any member could "forward" a
 * message nobody sent. A forwarded copy made by this SDK carries a proof (the
 * original v1.1 envelope and its content key, see `crypto/forward-proof.ts`);
 * the receiver checks the original sender's signature and the key commitment
 * and decrypts the original itself, then compares it with the claim.
 * {@link attributeForward} says which of the two a copy is, as a typed
 * {@link ForwardAttribution}: `verified: true` only when the original
 * sender's key signed exactly this payload and these ids (or when the
 * forwarder is the original sender, whose own signature covers the copy).
 *
 * The proof is as strong as the key the receiver finds for the original
 * sender: it comes from the key directory (pins included). The service
 * answers a key look-up only for principals the receiver shares a
 * conversation with, so a forward from a stranger stays `unknown_sender`.
 *
 * @module
 */
import { fromBase64 } from '../core/encoding.js';
import { isCryptoError } from '../core/errors/guards.js';
import { ForwardedPayloadSchema } from '../core/protocol/artifacts.js';
import { openDisclosed, type DisclosedEnvelope } from '../crypto/forward-proof.js';
import type { EnvelopePayload } from '../crypto/payload.js';

/** Why a forwarded copy's attribution is not verified. */
export type ForwardUnverifiedReason =
  /** The copy carries no proof (an older SDK, an original too large, or a forgery). */
  | 'no_proof'
  /** The `forwarded` payload does not fit its schema. */
  | 'malformed'
  /** No signing key could be found for the claimed original sender. */
  | 'unknown_sender'
  /** The proof's envelope is not signed by the original sender's key. */
  | 'signature'
  /** The proof does not open (malformed, wrong content key, not v1.1). */
  | 'invalid_proof'
  /** The proof opens, but to another sender, ids or payload than the copy claims. */
  | 'mismatch';

/** What a receiver knows about the origin of a forwarded copy. */
export interface ForwardAttribution {
  /**
   * True when the original sender's signature covers exactly this payload and
   * these ids (checked against the sender's key from the key directory), or
   * when the forwarder is the original sender. False: everything below is the
   * forwarder's unverified claim; never show it as the original sender's words.
   */
  readonly verified: boolean;
  /** Why not verified; undefined when verified. */
  readonly reason: ForwardUnverifiedReason | undefined;
  /** Who forwarded it: the signed sender of the copy. */
  readonly forwardedBy: string;
  /** The original sender: signed when verified, else claimed by the forwarder. */
  readonly senderId: string;
  /** The original conversation (signed when verified). */
  readonly conversationId: string;
  /** The original message id (signed when verified). */
  readonly messageId: string;
  /** The original creation time (signed when verified). */
  readonly createdAt: string;
  /** The original payload: the decrypted original when verified, else the forwarder's copy. */
  readonly payload: EnvelopePayload;
}

/** A signing key look-up (the key directory's); undefined or a throw: unknown. */
export type ForwardKeyLookup = (principalId: string) => Promise<Uint8Array | undefined>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The attribution of a `forwarded` payload received from `forwarderId`, or
 * `undefined` when the payload is not a forwarded copy. Never throws: every
 * failure is an unverified attribution with its reason.
 */
export async function attributeForward(
  payload: EnvelopePayload,
  forwarderId: string,
  signingKey: ForwardKeyLookup,
): Promise<ForwardAttribution | undefined> {
  if (payload['type'] !== 'forwarded') return undefined;
  const parsed = ForwardedPayloadSchema.safeParse(payload);
  if (!parsed.success) {
    const original = (payload['original'] ?? {}) as Record<string, unknown>;
    const inner = payload['payload'];
    return {
      verified: false,
      reason: 'malformed',
      forwardedBy: forwarderId,
      senderId: text(original['sender_id']),
      conversationId: text(original['conversation_id']),
      messageId: text(original['message_id']),
      createdAt: text(original['created_at']),
      payload:
        typeof inner === 'object' && inner !== null && !Array.isArray(inner)
          ? (inner as EnvelopePayload)
          : {},
    };
  }
  const p = parsed.data;
  const claimed = {
    forwardedBy: forwarderId,
    senderId: p.original.sender_id,
    conversationId: p.original.conversation_id,
    messageId: p.original.message_id,
    createdAt: p.original.created_at,
    payload: p.payload as EnvelopePayload,
  };
  const unverified = (reason: ForwardUnverifiedReason): ForwardAttribution => ({
    verified: false,
    reason,
    ...claimed,
  });
  if (p.proof === undefined) {
    // The forwarder's own message: its signature on the copy is the original sender's.
    return p.original.sender_id === forwarderId
      ? { verified: true, reason: undefined, ...claimed }
      : unverified('no_proof');
  }
  let lookupFound = false;
  let disclosed: DisclosedEnvelope;
  const contentKey = fromBase64(p.proof.content_key)!;
  try {
    disclosed = await openDisclosed(p.proof.wire_envelope, contentKey, {
      senderKey: async (id) => {
        const key = await signingKey(id).catch(() => undefined);
        lookupFound = key !== undefined;
        return key;
      },
    });
  } catch (err) {
    if (isCryptoError(err, 'DECRYPT_FAILURE') && err.reason === 'signature') {
      return unverified(lookupFound ? 'signature' : 'unknown_sender');
    }
    return unverified('invalid_proof');
  } finally {
    contentKey.fill(0);
  }
  const fits =
    disclosed.senderId === claimed.senderId &&
    disclosed.conversationId === claimed.conversationId &&
    disclosed.messageId === claimed.messageId &&
    disclosed.createdAt === claimed.createdAt &&
    disclosed.eventType === 'message.new' &&
    sameJson(disclosed.payload, claimed.payload);
  if (!fits) return unverified('mismatch');
  return {
    verified: true,
    reason: undefined,
    forwardedBy: forwarderId,
    senderId: disclosed.senderId,
    conversationId: disclosed.conversationId,
    messageId: disclosed.messageId,
    createdAt: disclosed.createdAt,
    payload: disclosed.payload,
  };
}

/** The wire envelope each opened message arrived in, kept for as long as the message object lives. */
const wires = new WeakMap<object, string>();

/**
 * Remembers the wire envelope `message` was opened from, so that forwarding
 * that very object can carry a proof. Nothing is copied; the entry goes with
 * the object.
 */
export function rememberWireEnvelope(message: object, wireEnvelope: string): void {
  wires.set(message, wireEnvelope);
}

/** The wire envelope remembered for `message`, if any. */
export function wireEnvelopeOf(message: object): string | undefined {
  return wires.get(message);
}
