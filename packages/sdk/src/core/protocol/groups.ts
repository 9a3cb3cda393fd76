/**
 * Groups on the wire (a gap of the service interface; see docs/groups.md):
 * the invite-code format and its parser, the request bodies of the group
 * routes (`GROUP_ROUTES` in `service-names.ts`), the limits, and the payloads
 * of the two group events the service seals (`group.updated`,
 * `system.group_key_rotated`).
 *
 * Invite code: 12 characters of Crockford base32 (`0-9 A-Z` without
 * `I L O U`, 60 random bits), written `XXXX-XXXX-XXXX`. The parser is
 * forgiving the way Crockford's alphabet means it to be: case, hyphens and
 * spaces do not matter, `I`/`L` read as `1` and `O` as `0`.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { ValidationError } from '../errors/validation-error.js';
import { IdentifierSchema } from './primitives.js';

/** Limits of groups (reference server and SDK alike). */
export const GROUP_LIMITS = {
  /** Members of one group (humans and agents): with a retired key each, wraps stay under 1 024 per envelope. */
  maxMembers: 256,
  /** Agents named when the group is created. */
  maxInitialAgents: 32,
  /** Characters of a group name (after trimming). */
  nameMaxChars: 64,
  /** How long an unused invite code stays valid: 7 days. */
  inviteTtlMs: 7 * 24 * 3_600_000,
} as const satisfies Record<string, number>;

/** The alphabet of invite codes (Crockford base32). */
export const INVITE_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Characters of an invite code, hyphens excluded. */
export const INVITE_CODE_LENGTH = 12;
/** Longest text the parser looks at (hyphens and spaces included). */
const INVITE_CODE_MAX_INPUT = 32;

const ALIASES: Readonly<Record<string, string>> = { I: '1', L: '1', O: '0' };

/**
 * The canonical form (`XXXX-XXXX-XXXX`) of an invite code as a person may
 * type it, or `undefined` when it cannot be one.
 */
export function normalizeInviteCode(input: unknown): string | undefined {
  if (typeof input !== 'string' || input.length > INVITE_CODE_MAX_INPUT) return undefined;
  let out = '';
  for (const raw of input.toUpperCase()) {
    if (raw === '-' || raw === ' ') continue;
    const ch = ALIASES[raw] ?? raw;
    if (!INVITE_CODE_ALPHABET.includes(ch)) return undefined;
    out += ch;
  }
  if (out.length !== INVITE_CODE_LENGTH) return undefined;
  return `${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8)}`;
}

/**
 * Parses an invite code into its canonical form.
 *
 * @throws {@link ValidationError} when `input` is not an invite code (the message never repeats it).
 * @example
 * ```ts
 * parseInviteCode('7gk2 x9pq mwt4'); // '7GK2-X9PQ-MWT4'
 * ```
 */
export function parseInviteCode(input: unknown): string {
  const code = normalizeInviteCode(input);
  if (code !== undefined) return code;
  throw new ValidationError({
    message: `Not an invite code: ${INVITE_CODE_LENGTH} characters of 0-9 and A-Z without I, L, O, U.`,
    issues: [{ path: ['code'], message: 'invalid invite code' }],
  });
}

/** Formats 60 random bits (the low 60 bits of 8 bytes) as a canonical invite code. */
export function inviteCodeFromBytes(bytes: Uint8Array): string {
  if (bytes.length < 8) throw new RangeError('An invite code needs 8 random bytes.');
  let bits = 0n;
  for (const b of bytes.subarray(0, 8)) bits = (bits << 8n) | BigInt(b);
  let out = '';
  for (let i = 0; i < INVITE_CODE_LENGTH; i++) {
    out = INVITE_CODE_ALPHABET[Number(bits & 31n)]! + out;
    bits >>= 5n;
  }
  return `${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8)}`;
}

/** An invite code in a request body: any typed form; the route parses it. */
export const InviteCodeSchema = z
  .string()
  .max(INVITE_CODE_MAX_INPUT)
  .transform((s, ctx) => {
    const code = normalizeInviteCode(s);
    if (code === undefined) {
      ctx.addIssue({ code: 'custom', message: 'Not an invite code' });
      return z.NEVER;
    }
    return code;
  });

/** A group name: 1 to 64 characters after trimming, no control characters. */
export const GroupNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(GROUP_LIMITS.nameMaxChars)
  // eslint-disable-next-line no-control-regex
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { message: 'Must not contain control characters' });

/** `POST /groups`: the name and the agents to add (owned by the caller or in a relation with them). */
export const CreateGroupRequestSchema = z.strictObject({
  name: GroupNameSchema,
  agent_ids: z.array(IdentifierSchema).max(GROUP_LIMITS.maxInitialAgents).default([]),
});
/** Body of `POST /groups`. */
export type CreateGroupRequest = z.output<typeof CreateGroupRequestSchema>;

/** `POST /groups/join`. */
export const JoinGroupRequestSchema = z.strictObject({ code: InviteCodeSchema });
/** Body of `POST /groups/join` (code in canonical form after parsing). */
export type JoinGroupRequest = z.output<typeof JoinGroupRequestSchema>;

/** A group key version: 1 for a new group, one more per rotation. */
export const GroupKeyVersionSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** `POST /groups/:id/key/rotate`: the version the caller last read. */
export const RotateGroupKeyRequestSchema = z.strictObject({ based_on_version: GroupKeyVersionSchema });
/** Body of `POST /groups/:id/key/rotate`. */
export type RotateGroupKeyRequest = z.output<typeof RotateGroupKeyRequestSchema>;

/** What changed, in `group.updated`. */
export const GROUP_CHANGES = ['created', 'joined', 'left', 'removed'] as const;
/** A value of `group.updated`'s `change`. */
export type GroupChange = (typeof GROUP_CHANGES)[number];

/** Payload of `group.updated` (sealed by the system sender, WebSocket only). */
export const GroupUpdatedPayloadSchema = z.looseObject({
  conversation_id: IdentifierSchema,
  change: z.string().min(1).max(32),
  member_id: IdentifierSchema,
  key_version: GroupKeyVersionSchema,
  member_ids: z.array(IdentifierSchema).max(GROUP_LIMITS.maxMembers),
});
/** Payload of `group.updated`. */
export type GroupUpdatedPayload = z.output<typeof GroupUpdatedPayloadSchema>;

/** Why a group key version was started. */
export const GROUP_KEY_ROTATION_REASONS = ['membership', 'requested'] as const;

/** Payload of `system.group_key_rotated` (sealed by the system sender, WebSocket only). */
export const GroupKeyRotatedPayloadSchema = z.looseObject({
  conversation_id: IdentifierSchema,
  key_version: GroupKeyVersionSchema,
  previous_version: GroupKeyVersionSchema,
  reason: z.string().min(1).max(32),
  rotated_by: IdentifierSchema,
});
/** Payload of `system.group_key_rotated`. */
export type GroupKeyRotatedPayload = z.output<typeof GroupKeyRotatedPayloadSchema>;
