/**
 * The agent's REST calls, made with its agent token (`hsk_…`) on the REST
 * client core: every answer is checked with a zod schema of the wire body
 * (a mismatch is a {@link ValidationError}, never a crash later on), and
 * errors are the REST client's typed errors.
 *
 * Message sends pass the client-side `messages` limiter (5/s per agent) and
 * object fetches the `objects` limiter, so a busy agent queues instead of
 * meeting 429; a 429 that still happens is retried after its Retry-After.
 *
 * @module
 */
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { DeliveryLogListSchema, type DeliveryLogEntry } from '../core/protocol/delivery-log.js';
import { RecoverConnectionResultSchema } from '../core/protocol/connection-status.js';
import type { KeyProofFields } from '../crypto/key-proof.js';
import { createRestClient, type RestClient } from '../transport/rest/client.js';
import { objectKeyPath, pathSegment } from '../transport/rest/paths.js';
import { routePath, SERVICE_ROUTES } from '../core/protocol/service-names.js';
import { AgentViewSchema, GovernanceSchema, type AgentView } from '../messaging/wire/agents.js';
import type { KeyStatementWire } from '../core/protocol/key-statement.js';
import {
  ConversationDetailSchema,
  ConversationListSchema,
  SentMessageSchema,
  StoredMessageListSchema,
  type Conversation,
  type ConversationDetail,
  type StoredMessage,
} from '../messaging/wire/conversations.js';
import {
  AgentKeyViewSchema,
  KeyChallengeAnswerSchema,
  KeyCheckAnswerSchema,
  PrincipalKeysSchema,
  type KeyChallengeAnswer,
  type PrincipalKeys,
} from '../messaging/wire/keys.js';
import {
  configError,
  keysOf,
  sentOf,
  type RegisteredKeys,
  type SentMessageResult,
} from '../messaging/wire/results.js';

export type { RegisteredKeys, SentMessageResult } from '../messaging/wire/results.js';

/** Options of {@link createAgentApi}. */
export interface AgentApiOptions {
  /** The service's base URL, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The agent's id. */
  agentId: string;
  /** The agent token (`hsk_…`), or a function giving the current one (after a rotation). Never logged. */
  token: string | (() => string);
  /** A REST client to use instead of creating one (its credentials must be this agent's token). */
  rest?: RestClient;
  /** Time source of the created REST client. @defaultValue `systemClock` */
  clock?: Clock;
  /** Where the created REST client logs (redacted). @defaultValue silent */
  logger?: Logger;
  /** undici dispatcher of the created REST client. @defaultValue a shared keep-alive `Agent` */
  dispatcher?: Dispatcher;
}

/** The agent as it sees itself (`GET /agents/:id`), the fields the SDK acts on in camelCase. */
export interface AgentSelf {
  readonly agentId: string;
  /** `ready`, `unreachable`, or another value kept as-is. */
  readonly connectionStatus: string;
  /** True after a token regeneration until new keys are registered with the new token. */
  readonly keyRotationPending: boolean;
  /** The current registered keys, or null (never registered, or dropped by an emergency regeneration). */
  readonly keys: RegisteredKeys | null;
  /** The whole answer (wire field names). */
  readonly view: AgentView;
}

/** The outcome of a key check: the local keys are a live registered generation. */
export interface KeyCheckResult {
  /** `current`, or `retired` (still in grace after a rotation). */
  readonly generation: string;
  readonly keyId: string;
  /** End of the generation's grace (ms since the epoch), or null when it is current. */
  readonly validUntilMs: number | null;
}

/** The agent's REST calls. Every method rejects with the REST client's typed errors. */
export interface AgentApi {
  /** The agent's id. */
  readonly agentId: string;
  /** The REST client in use (events: `rateLimited`, `retry`). */
  readonly rest: RestClient;
  /**
   * `POST /agents/:id/messages` with a sealed envelope (client-side limiter, retries on 429).
   * `signal` aborts the send, also while it waits for the limiter or a retry.
   */
  sendMessage(
    conversationId: string,
    wireEnvelope: string,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<SentMessageResult>;
  /** `POST /agents/:id/connection/recover`. */
  recoverConnection(): Promise<{ pendingCount: number; connectionStatus: string }>;
  /** `GET /agents/:id/delivery-logs?limit=`, newest first. */
  deliveryLogs(limit?: number): Promise<DeliveryLogEntry[]>;
  /** `GET /r2/<object_key>` (client-side limiter). */
  fetchObject(objectKey: string): Promise<{ bytes: Uint8Array; contentType: string; size: number }>;
  /** `GET /agents/:id/governance`. */
  governance(): Promise<{ level: string | null; reason?: string } & Record<string, unknown>>;
  /** `GET /agents/:id`. */
  getSelf(): Promise<AgentSelf>;
  /** `GET /agents/:id/keys/challenge`. */
  keyChallenge(): Promise<KeyChallengeAnswer>;
  /** `PUT /agents/:id/keys` with proof fields; `changed` is false when these keys were already registered. */
  /**
   * `PUT /agents/:id/keys` with proof fields. `replace: true` replaces
   * registered keys this agent no longer holds (the AGENT_KEYS_MISMATCH self-heal);
   * `statement` is the key succession statement signed by the previous
   * generation (a normal rotation; docs/keys.md), stored and served by the service.
   */
  registerKeys(
    fields: KeyProofFields,
    options?: { readonly replace?: boolean; readonly statement?: KeyStatementWire | undefined },
  ): Promise<RegisteredKeys & { changed: boolean }>;
  /** `POST /agents/:id/keys/check` with proof fields (409 AGENT_KEYS_MISMATCH, 404 AGENT_NOT_REGISTERED). */
  checkKeys(fields: KeyProofFields): Promise<KeyCheckResult>;
  /** `GET /keys/:principal_id`. */
  publicKeys(principalId: string): Promise<PrincipalKeys>;
  /** `GET /system/keys`. */
  systemKeys(): Promise<PrincipalKeys>;
  /** `GET /agents/:id/conversations`. */
  conversations(): Promise<Conversation[]>;
  /** `GET /conversations/:id`: the conversation with its members' public keys. */
  conversation(conversationId: string): Promise<ConversationDetail>;
  /** `GET /conversations/:id/messages?after=&limit=`: stored messages, oldest first. */
  messages(conversationId: string, options?: { after?: number; limit?: number }): Promise<StoredMessage[]>;
}

/**
 * Creates the agent's REST API.
 *
 * @throws {@link ConfigurationError} for a missing `agentId` or `token`, or a bad `baseUrl`.
 * @example
 * ```ts
 * const api = createAgentApi({ baseUrl, agentId, token: process.env.AGENT_TOKEN! });
 * const { messageId } = await api.sendMessage(conversationId, wireEnvelope);
 * ```
 */
export function createAgentApi(options: AgentApiOptions): AgentApi {
  if (typeof options.agentId !== 'string' || options.agentId === '') throw configError('agentId');
  const token = options.token;
  if (!(typeof token === 'function' || (typeof token === 'string' && token !== '')))
    throw configError('token');
  const rest =
    options.rest ??
    createRestClient({
      baseUrl: options.baseUrl,
      credentials: typeof token === 'string' ? token : () => token(),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
    });
  const self = `/agents/${pathSegment(options.agentId)}`;
  const selfParams = { id: options.agentId };

  return {
    agentId: options.agentId,
    rest,
    async sendMessage(conversationId, wireEnvelope, sendOptions = {}) {
      const res = await rest.requestWithResponse({
        method: 'POST',
        path: `${self}/messages`,
        body: { conversation_id: conversationId, wire_envelope: wireEnvelope },
        schema: SentMessageSchema,
        limiter: 'messages',
        ...(sendOptions.signal === undefined ? {} : { signal: sendOptions.signal }),
      });
      return sentOf(res.data, res.status);
    },
    async recoverConnection() {
      const data = await rest.post(
        `${self}/connection/recover`,
        {},
        { schema: RecoverConnectionResultSchema },
      );
      const status = (data as Record<string, unknown>)['connection_status'];
      return {
        pendingCount: data.pending_count,
        connectionStatus: typeof status === 'string' ? status : 'ready',
      };
    },
    deliveryLogs: (limit) =>
      rest.get(`${self}/delivery-logs`, { query: { limit }, schema: DeliveryLogListSchema }),
    async fetchObject(objectKey) {
      const res = await rest.getBytes(objectKeyPath(objectKey), { limiter: 'objects' });
      return { bytes: res.bytes, contentType: res.contentType ?? 'application/octet-stream', size: res.size };
    },
    async governance() {
      const { reason, ...view } = await rest.get(`${self}/governance`, { schema: GovernanceSchema });
      return typeof reason === 'string' ? { ...view, reason } : view;
    },
    async getSelf() {
      const view = await rest.get(routePath(SERVICE_ROUTES.getAgent, selfParams), {
        schema: AgentViewSchema,
      });
      return {
        agentId: view.agent_id,
        connectionStatus: view.connection_status,
        keyRotationPending: view.key_rotation_pending === true,
        keys: view.keys == null ? null : keysOf(view.keys),
        view,
      };
    },
    keyChallenge: () =>
      rest.get(routePath(SERVICE_ROUTES.keyChallenge, selfParams), {
        schema: KeyChallengeAnswerSchema,
      }),
    async registerKeys(fields, options) {
      const res = await rest.requestWithResponse({
        method: 'PUT',
        path: routePath(SERVICE_ROUTES.registerAgentKeys, selfParams),
        body: {
          ...fields,
          ...(options?.replace === true ? { replace: true } : {}),
          ...(options?.statement === undefined ? {} : { key_statement: options.statement }),
        },
        schema: AgentKeyViewSchema,
      });
      return { ...keysOf(res.data), changed: res.status === 201 };
    },
    async checkKeys(fields) {
      const c = await rest.post(routePath(SERVICE_ROUTES.checkAgentKeys, selfParams), fields, {
        schema: KeyCheckAnswerSchema,
      });
      const until = c.valid_until == null ? null : Date.parse(c.valid_until);
      return { generation: c.generation, keyId: c.key_id, validUntilMs: until };
    },
    publicKeys: (id) =>
      rest.get(routePath(SERVICE_ROUTES.lookupKeys, { principal_id: id }), { schema: PrincipalKeysSchema }),
    systemKeys: () =>
      rest.get(routePath(SERVICE_ROUTES.systemKeys), { schema: PrincipalKeysSchema, auth: false }),
    conversations: () =>
      rest.get(routePath(SERVICE_ROUTES.agentConversations, selfParams), {
        schema: ConversationListSchema,
      }),
    conversation: (id) =>
      rest.get(routePath(SERVICE_ROUTES.getConversation, { id }), { schema: ConversationDetailSchema }),
    messages: (id, o = {}) =>
      rest.get(routePath(SERVICE_ROUTES.readMessages, { id }), {
        query: { after: o.after, limit: o.limit },
        schema: StoredMessageListSchema,
      }),
  };
}
