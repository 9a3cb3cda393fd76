/**
 * Caller input of `open` / `openAsync`, its validation, and the result type.
 *
 * @module
 */
import { ValidationError } from '../core/errors/index.js';
import type { CryptoBackend, SyncCryptoBackend } from './backend/types.js';
import { ENVELOPE_INLINE_MAX_BYTES } from './envelope-wire.js';
import { KEY_BYTES, type AgentKeys, type KeyPair } from './keys.js';
import type { EnvelopePayload } from './payload.js';

/** Looks up a sender's raw 32-byte Ed25519 public key; `undefined` when unknown. */
export type SyncSenderKeyLookup = (senderId: string) => Uint8Array | undefined;
/** As {@link SyncSenderKeyLookup}, possibly asynchronous. */
export type SenderKeyLookup = (senderId: string) => Uint8Array | undefined | Promise<Uint8Array | undefined>;

/**
 * The recipient's X25519 key pairs to try: the current one and any retired
 * ones still in their grace period. `AgentKeys` count as their `encryption` pair.
 */
export type RecipientKeys = KeyPair | AgentKeys | readonly (KeyPair | AgentKeys)[];

/** Options of {@link open}. */
export interface OpenOptions {
  /** The id under which this recipient appears in the envelope. */
  readonly recipientId: string;
  /** Candidate X25519 key pairs (current first, then retired). */
  readonly keys: RecipientKeys;
  /** The sender's Ed25519 public key, or a function that looks it up by sender id. */
  readonly senderKey: Uint8Array | SyncSenderKeyLookup;
  /**
   * Reject input longer than this (characters of base64, or bytes).
   * @defaultValue {@link ENVELOPE_INLINE_MAX_BYTES} (1 MiB); pass
   * {@link ENVELOPE_REF_MAX_BYTES} for envelopes fetched through `ref`.
   */
  readonly maxEnvelopeBytes?: number;
  /**
   * Accept legacy v1.0 envelopes (no key commitment, event type not bound):
   * an explicit opt-in for a migration period (security issue #24, item 10).
   * Without it a v1.0 envelope is `INVALID_ENVELOPE`. The risk of `true`: one
   * v1.0 envelope can open to different plaintexts for different recipients
   * (no key commitment) and its event type is not signed. v1.0 reading is
   * removed in 2.0.
   * @defaultValue `false`
   */
  readonly acceptLegacyV10?: boolean;
  /**
   * Crypto backend.
   * @defaultValue node:crypto
   */
  readonly backend?: SyncCryptoBackend;
}

/** Options of {@link openAsync}: as {@link OpenOptions}, with any backend and an async lookup allowed. */
export interface OpenAsyncOptions extends Omit<OpenOptions, 'backend' | 'senderKey'> {
  /** The sender's Ed25519 public key, or a (sync or async) lookup by sender id. */
  readonly senderKey: Uint8Array | SenderKeyLookup;
  /**
   * Crypto backend.
   * @defaultValue node:crypto on Node, else the portable backend
   */
  readonly backend?: CryptoBackend;
}

/** One recipient listed in an opened envelope. */
export interface OpenedRecipient {
  /** Recipient id. */
  readonly id: string;
  /** Fingerprint of the key the wrap was made for (see `keyFingerprint`). */
  readonly fingerprint: string;
}

/** What `open` returns: the payload and the signed metadata. */
export interface OpenedEnvelope {
  /** The decrypted payload object. */
  readonly payload: EnvelopePayload;
  /** The signed sender id (authoritative, unlike a delivery's `metadata`). */
  readonly senderId: string;
  /** The signed conversation id. */
  readonly conversationId: string;
  /** The signed message id. */
  readonly messageId: string;
  /** ISO 8601 UTC with milliseconds. */
  readonly createdAt: string;
  /** Every recipient of the message, in envelope order. */
  readonly recipients: readonly OpenedRecipient[];
  /** Fingerprint of the candidate key that opened the envelope. */
  readonly keyFingerprint: string;
  /** Envelope format version: `1.1`, or `1.0` for a legacy envelope. */
  readonly version: '1.0' | '1.1';
  /**
   * v1.1: the signed event type the sender sealed the payload as (compare it
   * with the delivery's `type`); undefined for a v1.0 envelope.
   */
  readonly eventType: string | undefined;
}

/**
 * The result of {@link crypto!openPayloadBytes | openPayloadBytes}: everything
 * {@link OpenedEnvelope} has, with the payload as its decrypted UTF-8 JSON bytes.
 */
export interface OpenedPayloadBytes extends Omit<OpenedEnvelope, 'payload'> {
  /** The payload's UTF-8 JSON text exactly as sealed (authenticated, not parsed). */
  readonly payloadJson: Uint8Array;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError({
    message: `Invalid open options: ${path} ${message}`,
    issues: [{ path: [path], message }],
  });
}

function isKeyPair(value: unknown): value is KeyPair {
  const kp = value as Partial<KeyPair> | null;
  return (
    typeof kp === 'object' &&
    kp !== null &&
    kp.publicKey instanceof Uint8Array &&
    kp.publicKey.length === KEY_BYTES &&
    kp.privateKey instanceof Uint8Array &&
    kp.privateKey.length === KEY_BYTES
  );
}

/**
 * The candidate key pairs as a flat list.
 *
 * @throws {@link ValidationError} when there is none or one is not a pair of 32-byte keys.
 */
export function candidateKeys(keys: RecipientKeys): readonly KeyPair[] {
  const list = (Array.isArray(keys) ? keys : [keys]) as readonly (KeyPair | AgentKeys)[];
  if (list.length === 0) throw invalid('keys', 'must hold at least one key pair');
  return list.map((k) => {
    const kp = typeof k === 'object' && k !== null && 'encryption' in k ? k.encryption : k;
    if (!isKeyPair(kp)) throw invalid('keys', 'must be X25519 key pairs of 32-byte keys');
    return kp;
  });
}

/**
 * Validates the options common to both forms of `open`.
 *
 * @throws {@link ValidationError} on a bad recipient id, key list or size cap.
 */
export function checkOpenOptions(options: OpenOptions | OpenAsyncOptions): {
  keys: readonly KeyPair[];
  maxBytes: number;
  acceptLegacy: boolean;
} {
  if (typeof options.recipientId !== 'string' || options.recipientId === '') {
    throw invalid('recipientId', 'must be a non-empty string');
  }
  const maxBytes = options.maxEnvelopeBytes ?? ENVELOPE_INLINE_MAX_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0)
    throw invalid('maxEnvelopeBytes', 'must be a positive integer');
  const acceptLegacy = options.acceptLegacyV10 ?? false;
  if (typeof acceptLegacy !== 'boolean') throw invalid('acceptLegacyV10', 'must be a boolean');
  return { keys: candidateKeys(options.keys), maxBytes, acceptLegacy };
}
