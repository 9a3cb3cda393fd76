/**
 * Wire schemas of agents: the agent view (`GET /agents/:id`), creation,
 * token regeneration and revocation, governance and webhook registration.
 *
 * The service shows none of these bodies beyond `connection_status` and
 * `pending_count`; the fields below are the reference server's answers
 * (docs/reference-server.md, "Part 2: agents"). Objects are loose; the
 * fields the SDK acts on are checked.
 *
 * @module
 */
import * as z from '../../core/lazy-zod.js';
import { AgentTokenSchema } from '../../core/protocol/agent-token.js';
import { ConnectionStatusSchema } from '../../core/protocol/connection-status.js';
import { IdentifierSchema, TimestampWithZoneSchema } from '../../core/protocol/primitives.js';
import { AgentKeyViewSchema, type AgentKeyView } from './keys.js';
import type { ConnectionStatus } from '../../core/protocol/connection-status.js';
import type { SameType } from '../../core/protocol/same-type.js';

/** The agent view: `GET /agents/:id` (owner or the agent itself), `GET /agents` items. */
export const AgentViewSchema = z.looseObject({
  agent_id: IdentifierSchema,
  owner_id: IdentifierSchema.optional(),
  name: z.string().max(1024).optional(),
  connection_status: ConnectionStatusSchema,
  delivery_mode: z.string().max(32).optional(),
  webhook_url: z.string().max(4096).nullable().optional(),
  pending_count: z.number().int().nonnegative().optional(),
  governance: z
    .looseObject({ level: z.string().max(32).nullable(), reason: z.string().max(4096).nullable().optional() })
    .optional(),
  keys: AgentKeyViewSchema.nullable().optional(),
  key_rotation_pending: z.boolean().optional(),
});
/** An agent (wire field names). */
export interface AgentView {
  [field: string]: unknown;
  agent_id: string;
  owner_id?: string | undefined;
  name?: string | undefined;
  connection_status: ConnectionStatus;
  delivery_mode?: string | undefined;
  webhook_url?: string | null | undefined;
  pending_count?: number | undefined;
  governance?:
    { [field: string]: unknown; level: string | null; reason?: string | null | undefined } | undefined;
  keys?: AgentKeyView | null | undefined;
  key_rotation_pending?: boolean | undefined;
}
true satisfies SameType<z.output<typeof AgentViewSchema>, AgentView>;

/** `POST /agents`: the agent view plus its first token (shown once). */
export const CreatedAgentSchema = AgentViewSchema.extend({ token: AgentTokenSchema });
/** A newly created agent (wire field names). */
export type CreatedAgent = z.output<typeof CreatedAgentSchema>;

/** `POST /agents/:id/token/regenerate`. */
export const TokenRegenerationSchema = z.looseObject({
  agent_id: IdentifierSchema,
  token: AgentTokenSchema,
  emergency: z.boolean(),
  previous_token_valid_until: TimestampWithZoneSchema.nullable().optional(),
  key_rotation_pending: z.boolean().optional(),
  regenerations_left: z.number().int().nonnegative().optional(),
});
/** Answer of a token regeneration (wire field names). */
export type TokenRegeneration = z.output<typeof TokenRegenerationSchema>;

/** `DELETE /agents/:id/token`. */
export const TokenRevocationSchema = z.looseObject({
  agent_id: IdentifierSchema,
  token_revoked: z.literal(true),
  disconnected: z.number().int().nonnegative().optional(),
});
/** Answer of a token revocation (wire field names). */
export type TokenRevocation = z.output<typeof TokenRevocationSchema>;

/** `GET /agents/:id/governance`: level `none`, `L1`, `L2`, `L3` (others kept as-is) and its reason. */
export const GovernanceSchema = z.looseObject({
  level: z.string().max(32).nullable(),
  reason: z.string().max(4096).nullable().optional(),
  state: z.string().max(32).optional(),
});
/** Governance state (wire field names). */
export type Governance = z.output<typeof GovernanceSchema>;

/** `PUT /agents/:id/webhook`: the secret is shown once. */
export const WebhookRegistrationSchema = z.looseObject({
  agent_id: IdentifierSchema,
  url: z.string().min(1).max(4096),
  secret: z.string().min(1).max(1024),
  delivery_mode: z.string().max(32).optional(),
});
/** A webhook registration (wire field names). */
export type WebhookRegistration = z.output<typeof WebhookRegistrationSchema>;

/** `GET` / `DELETE /agents/:id/webhook`. */
export const WebhookStateSchema = z.looseObject({
  agent_id: IdentifierSchema,
  url: z.string().max(4096).nullable(),
  delivery_mode: z.string().max(32).optional(),
});
/** Webhook state (wire field names). */
export type WebhookState = z.output<typeof WebhookStateSchema>;
