/**
 * Caller input of `seal` / `sealAsync`, and its validation into a resolved
 * form (with the randomness drawn). Shared by both forms of `seal`.
 *
 * @module
 */
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { utf8 } from '../core/encoding.js';
import { ValidationError } from '../core/errors/index.js';
import type { CryptoBackend, SyncCryptoBackend } from './backend/types.js';
import {
  encodeHeader,
  envelopeSize,
  isCreatedAt,
  MAX_ID_BYTES,
  MAX_RECIPIENTS,
  type EnvelopeMinorVersion,
} from './envelope-format.js';
import { ENVELOPE_REF_MAX_BYTES } from './envelope-wire.js';
import { fingerprintBytes, type KeyPair, KEY_BYTES } from './keys.js';

/** One recipient of an envelope. */
export interface EnvelopeRecipient {
  /** The recipient's id (user or agent id). */
  readonly id: string;
  /** The recipient's raw 32-byte X25519 public key. */
  readonly publicKey: Uint8Array;
}

/** The sender of an envelope: its id and Ed25519 key pair (an `AgentKeys` fits as `{ id, ...keys }`). */
export interface EnvelopeSender {
  /** The sender's id, bound into the envelope. */
  readonly id: string;
  /** The sender's Ed25519 key pair. */
  readonly signing: KeyPair;
}

/** A format version `seal` writes: `'1.1'` (default) or the legacy `'1.0'`. */
export type EnvelopeVersionName = '1.0' | '1.1';

/** The event type sealed when none is given. */
export const DEFAULT_SEALED_EVENT_TYPE = 'message.new';

/** Options of {@link seal}. */
export interface SealOptions {
  /** Who sends: id and Ed25519 signing key pair. */
  readonly sender: EnvelopeSender;
  /** One or more recipients (at most 1,024), each `{ id, publicKey }`. */
  readonly recipients: readonly EnvelopeRecipient[];
  /** The conversation the message belongs to. */
  readonly conversationId: string;
  /**
   * The message id bound into the envelope.
   * @defaultValue a random UUID v4
   */
  readonly messageId?: string;
  /**
   * The creation time bound into the envelope (ISO 8601 UTC with milliseconds, or a Date).
   * @defaultValue `clock.now()`
   */
  readonly createdAt?: Date | string;
  /**
   * v1.1: the event type the payload is sealed as, bound under the signature so
   * a relay cannot deliver it under another type. Not written in v1.0.
   * @defaultValue `'message.new'`
   */
  readonly eventType?: string;
  /**
   * Envelope format version to write. `'1.0'` (no key commitment, no event
   * type) exists only for peers that cannot read v1.1 yet; it is deprecated
   * and will be removed with 2.0.
   * @defaultValue `'1.1'`
   */
  readonly version?: EnvelopeVersionName;
  /**
   * Clock for the default `createdAt`.
   * @defaultValue systemClock
   */
  readonly clock?: Clock;
  /**
   * Refuse to produce a `wire_envelope` longer than this many characters.
   * @defaultValue {@link ENVELOPE_REF_MAX_BYTES} (16 MiB)
   */
  readonly maxEnvelopeBytes?: number;
  /**
   * Crypto backend.
   * @defaultValue node:crypto
   */
  readonly backend?: SyncCryptoBackend;
}

/** Options of {@link sealAsync}: as {@link SealOptions}, with any backend. */
export interface SealAsyncOptions extends Omit<SealOptions, 'backend'> {
  /**
   * Crypto backend.
   * @defaultValue node:crypto on Node, else the portable backend
   */
  readonly backend?: CryptoBackend;
}

/** Everything `seal` needs, validated, with its randomness drawn. */
export interface ResolvedSeal {
  readonly signing: KeyPair;
  readonly recipients: readonly EnvelopeRecipient[];
  readonly headerBytes: Uint8Array;
  readonly ephemeral: KeyPair;
  readonly contentKey: Uint8Array;
  readonly nonce: Uint8Array;
  readonly messageId: string;
  readonly createdAt: string;
  /** 1 for v1.1 (key commitment), 0 for legacy v1.0. */
  readonly minor: EnvelopeMinorVersion;
}

function invalid(path: (string | number)[], message: string): ValidationError {
  return new ValidationError({
    message: `Invalid seal options: ${path.join('.')} ${message}`,
    issues: [{ path, message }],
  });
}

function checkId(value: unknown, path: (string | number)[]): string {
  if (typeof value !== 'string') throw invalid(path, 'must be a string');
  const len = utf8(value).length;
  if (len === 0 || len > MAX_ID_BYTES) throw invalid(path, `must be 1 to ${MAX_ID_BYTES} UTF-8 bytes`);
  return value;
}

function checkKey(value: unknown, path: (string | number)[]): Uint8Array {
  if (!(value instanceof Uint8Array) || value.length !== KEY_BYTES)
    throw invalid(path, 'must be a 32-byte key');
  return value;
}

function checkRecipients(list: unknown, backend: CryptoBackend): readonly EnvelopeRecipient[] {
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_RECIPIENTS) {
    throw invalid(['recipients'], `must list 1 to ${MAX_RECIPIENTS} recipients`);
  }
  const seen = new Set<string>();
  return list.map((r: Partial<EnvelopeRecipient> | undefined, i) => {
    const id = checkId(r?.id, ['recipients', i, 'id']);
    const publicKey = checkKey(r?.publicKey, ['recipients', i, 'publicKey']);
    const key = `${id}\u0000${fingerprintBytes(publicKey, backend).join(',')}`;
    if (seen.has(key)) throw invalid(['recipients', i], 'is a duplicate');
    seen.add(key);
    return { id, publicKey };
  });
}

function resolveCreatedAt(options: SealOptions | SealAsyncOptions): string {
  const value = options.createdAt ?? new Date((options.clock ?? systemClock).now());
  const text = value instanceof Date ? (Number.isNaN(value.getTime()) ? '' : value.toISOString()) : value;
  if (typeof text !== 'string' || !isCreatedAt(text)) {
    throw invalid(['createdAt'], 'must be ISO 8601 UTC with milliseconds (YYYY-MM-DDTHH:mm:ss.sssZ)');
  }
  return text;
}

function resolveMinor(version: unknown): EnvelopeMinorVersion {
  if (version === undefined || version === '1.1') return 1;
  if (version === '1.0') return 0;
  throw invalid(['version'], "must be '1.1' or '1.0'");
}

/** A UUID v4 string from 16 random bytes. */
export function uuidV4(bytes: Uint8Array): string {
  const b = Uint8Array.from(bytes);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Validates the caller's input (the payload is already JSON bytes: `plaintextLength` of them) and
 * draws the randomness, in this order:
 * ephemeral X25519 private key (32), content key (32), content nonce (12),
 * then 16 bytes for the message id only when none is given.
 *
 * @throws {@link ValidationError} on any invalid option or payload.
 */
export function resolveSeal(
  plaintextLength: number,
  options: SealOptions | SealAsyncOptions,
  backend: CryptoBackend,
): ResolvedSeal {
  const senderId = checkId(options.sender?.id, ['sender', 'id']);
  const signing = options.sender.signing;
  checkKey(signing?.privateKey, ['sender', 'signing', 'privateKey']);
  checkKey(signing?.publicKey, ['sender', 'signing', 'publicKey']);
  const conversationId = checkId(options.conversationId, ['conversationId']);
  const recipients = checkRecipients(options.recipients, backend);
  const createdAt = resolveCreatedAt(options);
  const ephPrivate = backend.randomBytes(KEY_BYTES);
  const ephemeral = { privateKey: ephPrivate, publicKey: backend.x25519PublicKey(ephPrivate) };
  const contentKey = backend.randomBytes(32);
  const nonce = backend.randomBytes(12);
  const messageId = checkId(options.messageId ?? uuidV4(backend.randomBytes(16)), ['messageId']);
  const minor = resolveMinor(options.version);
  const eventType =
    minor === 1 ? checkId(options.eventType ?? DEFAULT_SEALED_EVENT_TYPE, ['eventType']) : undefined;
  const headerBytes = encodeHeader({
    eventType,
    senderId,
    conversationId,
    messageId,
    createdAt,
    ephemeralPublicKey: ephemeral.publicKey,
    recipients: recipients.map((r) => ({ id: r.id, fingerprint: fingerprintBytes(r.publicKey, backend) })),
  });
  const max = options.maxEnvelopeBytes ?? ENVELOPE_REF_MAX_BYTES;
  const wireLength =
    Math.ceil(envelopeSize(headerBytes.length, recipients.length, plaintextLength, minor === 1) / 3) * 4;
  if (wireLength > max) throw invalid(['payload'], 'makes the envelope larger than maxEnvelopeBytes');
  return {
    signing,
    recipients,
    headerBytes,
    ephemeral,
    contentKey,
    nonce,
    messageId,
    createdAt,
    minor,
  };
}
