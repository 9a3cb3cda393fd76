/**
 * Wire shape of a key succession statement (`key_statement` of
 * `PUT /agents/:id/keys`, `key_statements` of `GET /keys/:principal_id` and of
 * conversation and group members): a peer's previous signing key vouching for
 * its next key generation. The signature and its canonical bytes are in
 * `packages/sdk/src/crypto/key-statement.ts`; docs/keys.md has the format and
 * test vectors. The service only checks this shape and stores the statement
 * as received: it never needs to verify it (clients do).
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { base64Schema } from './primitives.js';

/** Highest generation number a statement may carry. */
export const KEY_STATEMENT_MAX_GENERATION = 0x7fff_ffff;

/** `issued_at`: exactly the form `Date.prototype.toISOString` writes (ms precision, UTC), so its bytes are canonical. */
const IssuedAtSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, {
    message: 'Must be an ISO 8601 UTC timestamp with milliseconds (toISOString form)',
  })
  .refine((s) => !Number.isNaN(Date.parse(s)) && new Date(Date.parse(s)).toISOString() === s, {
    message: 'Not a valid instant',
  });

/** A key succession statement as it travels (wire field names). */
export const KeyStatementSchema = z.strictObject({
  /** Format version: 1. */
  v: z.literal(1),
  /** The principal whose keys these are. */
  subject: z.string().min(1).max(128),
  /** The new generation's number (the first registered generation is 1; a successor is ≥ 2). */
  generation: z.number().int().min(2).max(KEY_STATEMENT_MAX_GENERATION),
  /** The new X25519 public key, base64. */
  public_key: base64Schema({ bytes: 32, maxChars: 64 }),
  /** The new Ed25519 public key, base64. */
  signing_public_key: base64Schema({ bytes: 32, maxChars: 64 }),
  /** `key_id` (16 hex) of the generation this one replaces: the key that signed the statement. */
  previous_key_id: z.string().regex(/^[0-9a-f]{16}$/, { message: 'Must be 16 lowercase hex characters' }),
  /** When the peer made the statement (and retired the previous generation), by the peer's own clock. */
  issued_at: IssuedAtSchema,
  /** Ed25519 signature by the previous generation's signing key, base64. */
  signature: base64Schema({ bytes: 64, maxChars: 128 }),
});
/** A key succession statement (wire field names). */
export type KeyStatementWire = z.output<typeof KeyStatementSchema>;
