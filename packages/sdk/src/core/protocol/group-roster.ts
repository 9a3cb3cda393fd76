/**
 * The signed group roster (docs/groups.md, "Signed roster"): who is in a
 * group, as its **owner** says, not as the service lists it. Each membership
 * change yields a new roster version, signed by the owner's Ed25519 key over
 * {@link groupRosterBytes}: a domain-separation label, then a canonical JSON
 * array built field by field (never the bytes received), so two parties that
 * parsed the same roster sign and verify the same bytes.
 *
 * Each member entry binds the SHA-256 fingerprints (64 lowercase hex) of the
 * member's current X25519 key (`enc`) and Ed25519 key (`sig`, `null` when it
 * has none): a sealer wraps only to the key the owner bound.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { utf8 } from '../encoding.js';
import { GROUP_LIMITS } from './groups.js';
import { base64Schema, IdentifierSchema } from './primitives.js';
import type { SameType } from './same-type.js';

/** Version of the roster format. */
export const GROUP_ROSTER_FORMAT = 1;

/** Domain-separation label that starts the signed bytes of every roster. */
export const GROUP_ROSTER_CONTEXT = 'agent-messaging/group-roster/v1\n';

/** A key fingerprint in a roster: SHA-256 of the raw 32-byte public key, 64 lowercase hex. */
export const RosterFingerprintSchema = z.string().regex(/^[0-9a-f]{64}$/, 'Must be 64 lowercase hex');

/** One member of a roster. */
export const GroupRosterMemberSchema = z.strictObject({
  id: IdentifierSchema,
  kind: z.enum(['user', 'agent']),
  /** Fingerprint of the member's X25519 key: the one key senders wrap to. */
  enc: RosterFingerprintSchema,
  /** Fingerprint of the member's Ed25519 key, or null when it has none. */
  sig: RosterFingerprintSchema.nullable(),
});
/** One member of a roster. */
export type GroupRosterMember = z.output<typeof GroupRosterMemberSchema>;

/** The signed content of a roster. */
export const GroupRosterSchema = z
  .strictObject({
    format: z.literal(GROUP_ROSTER_FORMAT),
    conversation_id: IdentifierSchema,
    /** 1 for the first roster, one more per change: a client never accepts a lower one. */
    version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    /** The owner: the member who signs the next version (a user of `members`). */
    owner_id: IdentifierSchema,
    /**
     * Who signed this version: the previous version's `owner_id` (the same as
     * `owner_id` except when the owner hands the group over before leaving).
     */
    signed_by: IdentifierSchema,
    members: z.array(GroupRosterMemberSchema).min(1).max(GROUP_LIMITS.maxMembers),
  })
  .superRefine((r, ctx) => {
    const ids = new Set(r.members.map((m) => m.id));
    if (ids.size !== r.members.length) ctx.addIssue({ code: 'custom', message: 'Duplicate member id' });
    const owner = r.members.find((m) => m.id === r.owner_id);
    if (owner === undefined || owner.kind !== 'user' || owner.sig === null) {
      ctx.addIssue({ code: 'custom', message: 'The owner must be a user member with a signing key' });
    }
  });
/** The signed content of a roster. */
export type GroupRoster = {
  format: 1;
  conversation_id: string;
  version: number;
  owner_id: string;
  signed_by: string;
  members: { id: string; kind: 'agent' | 'user'; enc: string; sig: string | null }[];
};
true satisfies SameType<z.output<typeof GroupRosterSchema>, GroupRoster>;

/**
 * A roster with the signature (64 bytes, base64) of `roster.signed_by` over
 * {@link groupRosterBytes}, and that signer's Ed25519 public key (32 bytes,
 * base64), which a verifier accepts only when its fingerprint is the one a
 * roster it already trusts binds to the signer.
 */
export const SignedGroupRosterSchema = z.strictObject({
  roster: GroupRosterSchema,
  signer_key: base64Schema({ bytes: 32 }),
  signature: base64Schema({ bytes: 64 }),
});
/** A roster with its owner's signature. */
export type SignedGroupRoster = z.output<typeof SignedGroupRosterSchema>;

/** Body of `PUT /groups/:id/roster` (the owner publishes a new version). */
export const PutGroupRosterRequestSchema = z.strictObject({ roster: SignedGroupRosterSchema });
/** Body of `PUT /groups/:id/roster`. */
export type PutGroupRosterRequest = z.output<typeof PutGroupRosterRequestSchema>;

/**
 * The bytes the owner signs: {@link GROUP_ROSTER_CONTEXT} then
 * `JSON.stringify([format, conversation_id, version, owner_id, signed_by, [[id, kind, enc, sig], …]])`
 * with the members sorted by id (UTF-16 code unit order), UTF-8.
 */
export function groupRosterBytes(roster: GroupRoster): Uint8Array {
  const members = [...roster.members]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((m) => [m.id, m.kind, m.enc, m.sig]);
  const body = JSON.stringify([
    roster.format,
    roster.conversation_id,
    roster.version,
    roster.owner_id,
    roster.signed_by,
    members,
  ]);
  return utf8(GROUP_ROSTER_CONTEXT + body);
}
