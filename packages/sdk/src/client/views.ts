/**
 * The {@link UserClient}'s camelCase results, built from the wire answers.
 * Each keeps the whole answer under `view` (wire field names) for fields the
 * SDK does not name.
 *
 * @module
 */
import type { Device } from '../core/protocol/device.js';
import type {
  AgentView,
  CreatedAgent,
  TokenRegeneration,
  WebhookRegistration,
} from '../messaging/wire/agents.js';
import type { Conversation } from '../messaging/wire/conversations.js';

const ms = (iso: string | null | undefined): number | null => (iso == null ? null : Date.parse(iso));

/** A device of the account. */
export interface DeviceInfo {
  readonly deviceId: string;
  readonly name: string | undefined;
  /** True for the device this client signed in as. */
  readonly current: boolean;
  readonly view: Device;
}

/** An agent of the signed-in owner. */
export interface AgentInfo {
  readonly agentId: string;
  readonly name: string | undefined;
  /** `ready`, `unreachable`, or another value kept as-is. */
  readonly connectionStatus: string;
  /** True after a token regeneration until the agent registers new keys. */
  readonly keyRotationPending: boolean;
  readonly view: AgentView;
}

/** A newly created agent with its token (shown once: hand it to the agent, never log it). */
export interface CreatedAgentInfo extends AgentInfo {
  readonly token: string;
}

/** The outcome of a token regeneration. */
export interface TokenRegenerationResult {
  readonly agentId: string;
  /** The new token (shown once). */
  readonly token: string;
  readonly emergency: boolean;
  /** Until when the previous token (and public key) stay valid; null after an emergency. */
  readonly previousTokenValidUntilMs: number | null;
  /** Regenerations left in the current 24 h window, when the service says. */
  readonly regenerationsLeft: number | undefined;
}

/** A webhook registration; the secret is shown once. */
export interface WebhookInfo {
  readonly agentId: string;
  readonly url: string;
  /** The shared HMAC secret (a secret: store it, never log it). */
  readonly secret: string;
}

/** A conversation between the user and an agent. */
export interface ConversationInfo {
  readonly conversationId: string;
  readonly userId: string;
  readonly agentId: string;
  /** `established`, `revoked`, `suspended`, or another value kept as-is. */
  readonly state: string;
  readonly view: Conversation;
}

/** Maps a device. */
export function deviceInfo(d: Device, currentDeviceId: string | undefined): DeviceInfo {
  const flagged = (d as Record<string, unknown>)['current'];
  return {
    deviceId: d.device_id,
    name: d.name,
    current: typeof flagged === 'boolean' ? flagged : d.device_id === currentDeviceId,
    view: d,
  };
}

/** Maps an agent view. */
export function agentInfo(a: AgentView): AgentInfo {
  return {
    agentId: a.agent_id,
    name: a.name,
    connectionStatus: a.connection_status,
    keyRotationPending: a.key_rotation_pending === true,
    view: a,
  };
}

/** Maps a created agent. */
export function createdAgentInfo(a: CreatedAgent): CreatedAgentInfo {
  return { ...agentInfo(a), token: a.token };
}

/** Maps a token regeneration. */
export function regenerationResult(r: TokenRegeneration): TokenRegenerationResult {
  return {
    agentId: r.agent_id,
    token: r.token,
    emergency: r.emergency,
    previousTokenValidUntilMs: ms(r.previous_token_valid_until),
    regenerationsLeft: r.regenerations_left,
  };
}

/** Maps a webhook registration. */
export function webhookInfo(w: WebhookRegistration): WebhookInfo {
  return { agentId: w.agent_id, url: w.url, secret: w.secret };
}

/** Maps a conversation. */
export function conversationInfo(c: Conversation): ConversationInfo {
  return {
    conversationId: c.conversation_id,
    userId: c.user_id,
    agentId: c.agent_id,
    state: c.state,
    view: c,
  };
}
