/**
 * Wire schemas of public keys and agent key registration: what
 * `GET /keys/:principal_id`, `GET /system/keys`, `GET /agents/:id/keys/challenge`,
 * `PUT /agents/:id/keys` and `POST /agents/:id/keys/check` answer.
 *
 * Field names are the service's. Objects are loose (fields the SDK does not
 * know are kept); the fields the SDK relies on are checked strictly, so a bad
 * answer is a {@link ValidationError}, never a crash later on.
 *
 * @module
 */
import * as z from '../../core/lazy-zod.js';
import { fromBase64 } from '../../core/encoding.js';
import { base64Schema, IdentifierSchema, TimestampWithZoneSchema } from '../../core/protocol/primitives.js';
import { KeyStatementSchema } from '../../core/protocol/key-statement.js';
import { ed25519KeyProblem } from '../../crypto/ed25519-rules.js';
import type { SameType } from '../../core/protocol/same-type.js';

/** A raw 32-byte key, canonical padded base64. */
export const PublicKeyB64Schema = base64Schema({ bytes: 32, maxChars: 64 });

/**
 * An Ed25519 public key the SDK's verification rule accepts
 * (`packages/sdk/src/crypto/ed25519-rules.ts`): canonical padded base64 of a canonical
 * encoding of a point in the prime-order subgroup, so small-order (identity),
 * mixed-order and non-canonical keys are refused when the answer is parsed.
 */
export const SigningPublicKeyB64Schema = PublicKeyB64Schema.refine(
  (text) => ed25519KeyProblem(fromBase64(text) ?? new Uint8Array(0)) === undefined,
  { message: 'Not an acceptable Ed25519 key (non-canonical, small order or mixed order)' },
);

/** 16 lowercase hex characters: the first 8 bytes of SHA-256 of a public key (`keyFingerprint`). */
export const KeyIdSchema = z
  .string()
  .regex(/^[0-9a-f]{16}$/, { message: 'Must be 16 lowercase hex characters' });

/** A key generation still in its grace period, as listed in `retired`. */
export const RetiredPublicKeySchema = z.looseObject({
  public_key: PublicKeyB64Schema,
  signing_public_key: SigningPublicKeyB64Schema.nullable().optional(),
  key_id: KeyIdSchema.nullable().optional(),
  valid_until: TimestampWithZoneSchema.nullable().optional(),
  /**
   * When the generation was retired (its successor registered). Receivers
   * accept its signing key only for messages created before this time; without
   * it, not at all. Our addition: the service does not show it.
   */
  retired_at: TimestampWithZoneSchema.nullable().optional(),
});
/** A retired key generation (wire field names). */
export type RetiredPublicKey = z.output<typeof RetiredPublicKeySchema>;

/**
 * Public keys of a principal (`GET /keys/:principal_id`, `GET /system/keys`).
 * `signing_public_key` is null for a user whose key backup has the minimal
 * form; `retired` lists agent keys still in grace (senders may wrap to them).
 */
export const PrincipalKeysSchema = z.looseObject({
  id: IdentifierSchema,
  kind: z.string().min(1).max(32),
  public_key: PublicKeyB64Schema,
  signing_public_key: SigningPublicKeyB64Schema.nullable().optional(),
  key_id: KeyIdSchema.nullable().optional(),
  signing_key_id: KeyIdSchema.nullable().optional(),
  retired: z.array(RetiredPublicKeySchema).max(64).optional(),
  /** Number of the current generation (1 for the first registered one). Our addition. */
  generation: z.number().int().min(1).max(0x7fff_ffff).nullable().optional(),
  /**
   * Key succession statements the peer signed (each by the generation it
   * replaces), for the current generation and the retired ones listed, newest
   * first. Stored and served as the peer uploaded them; clients verify them
   * against their pins (docs/keys.md). Our addition.
   */
  key_statements: z.array(KeyStatementSchema).max(64).optional(),
});
/** Public keys of a user, agent or the system sender (wire field names). */
export type PrincipalKeys = z.output<typeof PrincipalKeysSchema>;

/** `GET /agents/:id/keys/challenge`. */
export const KeyChallengeAnswerSchema = z.looseObject({
  challenge: base64Schema({ bytes: 32, maxChars: 64 }),
  server_public_key: PublicKeyB64Schema,
  expires_at: TimestampWithZoneSchema.optional(),
});
/** A key challenge (wire field names). */
export type KeyChallengeAnswer = z.output<typeof KeyChallengeAnswerSchema>;

/** One registered key generation (`keys` of the agent view, answer of `PUT /agents/:id/keys`). */
export const AgentKeyViewSchema = z.looseObject({
  public_key: PublicKeyB64Schema,
  signing_public_key: SigningPublicKeyB64Schema,
  key_id: KeyIdSchema,
  signing_key_id: KeyIdSchema.optional(),
  registered_at: TimestampWithZoneSchema.optional(),
  valid_until: TimestampWithZoneSchema.nullable().optional(),
  /** Number of this generation (1 for the first registered one). Our addition. */
  generation: z.number().int().min(1).max(0x7fff_ffff).optional(),
});
/** A registered key generation (wire field names). */
export interface AgentKeyView {
  [field: string]: unknown;
  public_key: string;
  signing_public_key: string;
  key_id: string;
  signing_key_id?: string | undefined;
  registered_at?: string | undefined;
  valid_until?: string | null | undefined;
  generation?: number | undefined;
}
true satisfies SameType<z.output<typeof AgentKeyViewSchema>, AgentKeyView>;

/** `POST /agents/:id/keys/check` on success (a mismatch is 409 AGENT_KEYS_MISMATCH). */
export const KeyCheckAnswerSchema = z.looseObject({
  match: z.literal(true),
  generation: z.string().min(1).max(32),
  key_id: KeyIdSchema,
  valid_until: TimestampWithZoneSchema.nullable().optional(),
});
/** A successful key check (wire field names). */
export type KeyCheckAnswer = z.output<typeof KeyCheckAnswerSchema>;
