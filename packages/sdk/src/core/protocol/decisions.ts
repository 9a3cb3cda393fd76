/**
 * Human decisions signed by the human: the statement a user's client signs
 * when it decides a data grant, revokes one, or accepts or rejects an agent's
 * manifest change, and the wire form the service stores and relays inside
 * the system event it sends the agent (`grant.decided`, `grant.revoked`,
 * `agent.capability_changed`, field `signed_decision`). The service only
 * relays: the agent verifies the signature against the human's Ed25519 key.
 *
 * Canonical bytes (what is signed):
 * `"ams/decision/v1" ‖ 0x00 ‖ UTF-8(canonical JSON of the statement)`, the
 * canonical JSON with keys sorted and no whitespace; every value of a
 * statement is a string or a safe integer, so the form is unique.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { canonicalJson } from './manifest.js';
import { GrantScopeSchema, GrantWindowSecondsSchema } from './grants.js';
import { IdentifierSchema, TimestampWithZoneSchema } from './primitives.js';
import type { SameType } from './same-type.js';

/** Domain separation label of every decision signature. */
export const DECISION_SIGNATURE_LABEL = 'ams/decision/v1';

/** What a signed decision decides. */
export const DECISION_KINDS = [
  'grant.granted',
  'grant.denied',
  'grant.revoked',
  'manifest.accepted',
  'manifest.rejected',
] as const;
/** A decision kind. */
export type DecisionKind = (typeof DECISION_KINDS)[number];

const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, { message: 'Must be 64 lowercase hex digits' });

const common = {
  v: z.literal(1),
  /** The agent the decision is about. */
  agent_id: IdentifierSchema,
  /** The human who decides (the grant's user, the agent's owner). */
  signer_id: IdentifierSchema,
  /** When the human decided, by the human's clock. */
  decided_at: TimestampWithZoneSchema,
};

/** A grant decided (granted or denied) or revoked: the grant, its scope and window, its conversation. */
export const GrantDecisionStatementSchema = z.strictObject({
  ...common,
  kind: z.enum(['grant.granted', 'grant.denied', 'grant.revoked']),
  grant_id: IdentifierSchema,
  conversation_id: IdentifierSchema,
  scope: GrantScopeSchema,
  /** The window granted (the one asked when denied or revoked), seconds. */
  window_seconds: GrantWindowSecondsSchema,
});
/** A signed statement about a grant. */
export type GrantDecisionStatement = z.output<typeof GrantDecisionStatementSchema>;

/** A manifest change accepted or rejected: its version and the SHA-256 of its canonical JSON. */
export const ManifestDecisionStatementSchema = z.strictObject({
  ...common,
  kind: z.enum(['manifest.accepted', 'manifest.rejected']),
  version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  /** SHA-256 (lowercase hex) of the canonical JSON of the manifest the owner reviewed. */
  manifest_sha256: Sha256HexSchema,
});
/** A signed statement about a manifest change. */
export type ManifestDecisionStatement = z.output<typeof ManifestDecisionStatementSchema>;

/** Any decision statement. */
export const DecisionStatementSchema = z.discriminatedUnion('kind', [
  GrantDecisionStatementSchema,
  ManifestDecisionStatementSchema,
]);
/** Any decision statement. */
export type DecisionStatement =
  | {
      kind: 'grant.revoked' | 'grant.granted' | 'grant.denied';
      grant_id: string;
      conversation_id: string;
      scope: 'profile.read' | 'conversations.list';
      window_seconds: number;
      v: 1;
      agent_id: string;
      signer_id: string;
      decided_at: string;
    }
  | {
      kind: 'manifest.accepted' | 'manifest.rejected';
      version: number;
      manifest_sha256: string;
      v: 1;
      agent_id: string;
      signer_id: string;
      decided_at: string;
    };
true satisfies SameType<z.output<typeof DecisionStatementSchema>, DecisionStatement>;

/** A statement with the human's Ed25519 signature over its canonical bytes (base64, 64 bytes). */
export const SignedDecisionSchema = z.strictObject({
  statement: DecisionStatementSchema,
  signature: z
    .string()
    .regex(/^[A-Za-z0-9+/]{86}==$/, { message: 'Must be the base64 of a 64-byte signature' }),
});
/** A signed decision (wire field names). */
export type SignedDecision = { statement: DecisionStatement; signature: string };
true satisfies SameType<z.output<typeof SignedDecisionSchema>, SignedDecision>;

/**
 * The bytes a decision signature covers:
 * `"ams/decision/v1" ‖ 0x00 ‖ UTF-8(canonicalJson(statement))`.
 *
 * @example
 * ```ts
 * const bytes = decisionSigningBytes(statement);
 * ```
 */
export function decisionSigningBytes(statement: DecisionStatement): Uint8Array {
  const enc = new TextEncoder();
  const label = enc.encode(DECISION_SIGNATURE_LABEL);
  const body = enc.encode(canonicalJson(statement));
  const out = new Uint8Array(label.length + 1 + body.length);
  out.set(label, 0);
  out.set(body, label.length + 1);
  return out;
}
