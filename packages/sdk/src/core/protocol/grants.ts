/**
 * Data grants: a user lets an agent read a named scope of the user's data
 * for a time window. The scopes are the data the reference server really
 * holds in the clear about the user — never message content, which stays
 * end-to-end encrypted and is already readable by the agent in its own
 * conversations:
 *
 * | Scope | What the agent reads |
 * |---|---|
 * | `profile.read` | the user's display name and locale |
 * | `conversations.list` | metadata of the user's conversations (ids, agents, states, times) — no content |
 *
 * A scope is a string `<resource>.<action>`; {@link parseGrantScope} accepts
 * exactly the scopes above, character for character.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { ValidationError } from '../errors/index.js';
import { parseWith } from './parse.js';
import type { SameType } from './same-type.js';

/** Every grant scope the service serves. */
export const GRANT_SCOPES = ['profile.read', 'conversations.list'] as const;
/** A grant scope. */
export type GrantScope = (typeof GRANT_SCOPES)[number];

/** Schema of a grant scope. */
export const GrantScopeSchema = z.enum(GRANT_SCOPES);

/** Bounds of a grant request (our choice; the spec fixes none). */
export const GRANT_LIMITS = Object.freeze({
  /** Shortest window: 1 minute. */
  windowMinSeconds: 60,
  /** Longest window: 30 days. */
  windowMaxSeconds: 30 * 24 * 60 * 60,
  /** Longest `reason`, in characters. */
  reasonMaxChars: 500,
});

/** True for a grant scope the service serves. */
export function isGrantScope(value: unknown): value is GrantScope {
  return typeof value === 'string' && (GRANT_SCOPES as readonly string[]).includes(value);
}

/**
 * Parses a grant scope: one of {@link GRANT_SCOPES}, exactly (no trimming, no case folding).
 *
 * @throws {@link ValidationError} naming the known scopes (never echoing the input).
 * @example
 * ```ts
 * parseGrantScope('profile.read'); // 'profile.read'
 * ```
 */
export function parseGrantScope(input: unknown): GrantScope {
  if (isGrantScope(input)) return input;
  const message = `A grant scope is one of ${GRANT_SCOPES.join(', ')}.`;
  throw new ValidationError({
    message: `Invalid grant scope: ${message}`,
    issues: [{ path: ['scope'], message }],
    params: { reason: 'unknown_scope', allowed: [...GRANT_SCOPES] },
  });
}

/** Schema of a grant window, in whole seconds. */
export const GrantWindowSecondsSchema = z
  .number()
  .int()
  .min(GRANT_LIMITS.windowMinSeconds)
  .max(GRANT_LIMITS.windowMaxSeconds);

/** Body of a grant request (`POST /agents/:id/grants`). */
export const GrantRequestBodySchema = z.strictObject({
  /** A conversation between the agent and the user asked. */
  conversation_id: z.string().min(1).max(128),
  scope: GrantScopeSchema,
  window_seconds: GrantWindowSecondsSchema,
  /** Shown to the user. */
  reason: z.string().min(1).max(GRANT_LIMITS.reasonMaxChars),
});
/** Body of a grant request. */
export type GrantRequestBody = z.output<typeof GrantRequestBodySchema>;

/** Where a grant is in its life. `expired` is computed on read once the window has ended. */
export const GrantStatusSchema = z.enum(['pending', 'granted', 'denied', 'revoked', 'expired']);
/** Where a grant is in its life. */
export type GrantStatus = 'denied' | 'expired' | 'pending' | 'granted' | 'revoked';
true satisfies SameType<z.output<typeof GrantStatusSchema>, GrantStatus>;

/** A grant (request) as the service shows it. */
export const GrantViewSchema = z.looseObject({
  grant_id: z.string().min(1),
  agent_id: z.string().min(1),
  user_id: z.string().min(1),
  conversation_id: z.string().min(1),
  scope: GrantScopeSchema,
  reason: z.string(),
  status: GrantStatusSchema,
  window_seconds: z.number().int(),
  requested_at: z.string(),
  decided_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
/** A grant (request). */
export type GrantView = z.output<typeof GrantViewSchema>;

/** `profile.read` data. */
export const ProfileGrantDataSchema = z.looseObject({
  user_id: z.string().min(1),
  display_name: z.string(),
  device_locale: z.string(),
});
/** `profile.read` data. */
export type ProfileGrantData = {
  [field: string]: unknown;
  user_id: string;
  display_name: string;
  device_locale: string;
};
true satisfies SameType<z.output<typeof ProfileGrantDataSchema>, ProfileGrantData>;

/** `conversations.list` data: metadata only. */
export const ConversationsGrantDataSchema = z.array(
  z.looseObject({
    conversation_id: z.string().min(1),
    agent_id: z.string().min(1),
    state: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
/** `conversations.list` data. */
export type ConversationsGrantData = {
  [field: string]: unknown;
  conversation_id: string;
  agent_id: string;
  state: string;
  created_at: string;
  updated_at: string;
}[];
true satisfies SameType<z.output<typeof ConversationsGrantDataSchema>, ConversationsGrantData>;

/** The data of each scope. */
export interface GrantDataByScope {
  'profile.read': ProfileGrantData;
  'conversations.list': ConversationsGrantData;
}

/** The schema of each scope's data. */
export const GRANT_DATA_SCHEMAS = {
  'profile.read': ProfileGrantDataSchema,
  'conversations.list': ConversationsGrantDataSchema,
} as const satisfies Record<GrantScope, z.ZodType>;

/** `GET /agents/:id/grants/:grant_id/data`: the scope and its data. */
export const GrantDataAnswerSchema = z.looseObject({
  grant_id: z.string().min(1),
  scope: GrantScopeSchema,
  expires_at: z.string(),
  data: z.unknown(),
});

/**
 * Checks the data read under `scope`.
 *
 * @throws {@link ValidationError} when it does not fit the scope.
 */
export function parseGrantData<S extends GrantScope>(scope: S, input: unknown): GrantDataByScope[S] {
  return parseWith(GRANT_DATA_SCHEMAS[scope] as z.ZodType, input, `${scope} data`) as GrantDataByScope[S];
}

/** The user's decision on a grant request. */
export const GrantDecisionSchema = z.enum(['granted', 'denied']);
/** `granted` or `denied`. */
export type GrantDecision = z.output<typeof GrantDecisionSchema>;

/** Payload of `grant.decided` (sealed by `system`). */
export const GrantDecidedPayloadSchema = z.looseObject({
  grant_id: z.string().min(1),
  scope: GrantScopeSchema,
  user_id: z.string().min(1),
  decision: GrantDecisionSchema,
  expires_at: z.string().nullable(),
});
/** Payload of `grant.decided`. */
export type GrantDecidedPayload = z.output<typeof GrantDecidedPayloadSchema>;
