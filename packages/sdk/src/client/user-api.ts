/**
 * The user's REST calls (access token, refreshed on `TOKEN_EXPIRED`), each
 * answer checked with its wire schema. The {@link UserClient} builds its
 * camelCase surface on these.
 *
 * @module
 */
import * as z from '../core/lazy-zod.js';
import { DeviceListSchema, type DeviceList } from '../core/protocol/device.js';
import { ValidationError } from '../core/errors/validation-error.js';
import type { KeyBackupRecord } from '../core/protocol/key-backup.js';
import type { RestClient, RestResponse } from '../transport/rest/client.js';
import { pathSegment } from '../transport/rest/paths.js';
import { routePath, SERVICE_ROUTES } from '../core/protocol/service-names.js';
import {
  AgentViewSchema,
  CreatedAgentSchema,
  TokenRegenerationSchema,
  TokenRevocationSchema,
  WebhookRegistrationSchema,
  WebhookStateSchema,
  type AgentView,
  type CreatedAgent,
  type TokenRegeneration,
  type TokenRevocation,
  type WebhookRegistration,
  type WebhookState,
} from '../messaging/wire/agents.js';
import {
  DeviceRevokedSchema,
  KeyBackupUploadAnswerSchema,
  SendCodeAnswerSchema,
  TokenAnswerSchema,
  type SendCodeAnswer,
  type TokenAnswer,
} from '../messaging/wire/auth.js';
import {
  ConversationDetailSchema,
  ConversationListSchema,
  ConversationSchema,
  SentMessageSchema,
  StoredMessageListSchema,
  type Conversation,
  type ConversationDetail,
  type StoredMessage,
} from '../messaging/wire/conversations.js';
import { PrincipalKeysSchema, type PrincipalKeys } from '../messaging/wire/keys.js';
import { sentOf, type SentMessageResult } from '../messaging/wire/results.js';
import type { LoginOptions, RegisterOptions } from './user-client-types.js';

/** The key backup as read back: an object (restoring checks every field, `checkKeyBackupRecord`). */
const StoredKeyBackupSchema = z.record(z.string(), z.unknown());

/** The user's REST calls (wire field names). */
export interface UserApi {
  readonly rest: RestClient;
  sendCode(body: { email: string; scene: string; turnstile_token: string }): Promise<SendCodeAnswer>;
  /** A sign-in (`/auth/register`, `/auth/login`, `/auth/login-code`): the token answer with its headers. */
  signIn(path: string, body: Record<string, unknown>): Promise<RestResponse<TokenAnswer>>;
  resetPassword(body: { email: string; code: string; new_account_password: string }): Promise<unknown>;
  uploadKeyBackup(record: KeyBackupRecord): Promise<void>;
  /** The stored backup as an object (restoring checks every field). */
  keyBackup(): Promise<Record<string, unknown>>;
  devices(): Promise<DeviceList>;
  revokeDevice(deviceId: string): Promise<void>;
  createAgent(name: string): Promise<CreatedAgent>;
  agents(): Promise<AgentView[]>;
  agent(agentId: string): Promise<AgentView>;
  regenerateToken(agentId: string, emergency: boolean): Promise<TokenRegeneration>;
  revokeToken(agentId: string): Promise<TokenRevocation>;
  setWebhook(agentId: string, url: string): Promise<WebhookRegistration>;
  removeWebhook(agentId: string): Promise<WebhookState>;
  addAgent(agentId: string): Promise<Conversation>;
  conversations(): Promise<Conversation[]>;
  conversation(conversationId: string): Promise<ConversationDetail>;
  revokeConversation(conversationId: string): Promise<Conversation>;
  sendMessage(
    conversationId: string,
    wireEnvelope: string,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<SentMessageResult>;
  messages(
    conversationId: string,
    after: number | undefined,
    limit: number | undefined,
  ): Promise<StoredMessage[]>;
  publicKeys(principalId: string): Promise<PrincipalKeys>;
  systemKeys(): Promise<PrincipalKeys>;
}

/** Creates the user's REST calls over `rest` (whose credentials are the session's access token). */
export function createUserApi(rest: RestClient): UserApi {
  const agentPath = (id: string): string => `/agents/${pathSegment(id)}`;
  return {
    rest,
    sendCode: (body) => rest.post('/auth/send-code', body, { auth: false, schema: SendCodeAnswerSchema }),
    signIn: (path, body) =>
      rest.requestWithResponse({ method: 'POST', path, body, auth: false, schema: TokenAnswerSchema }),
    resetPassword: (body) => rest.post('/auth/reset-password', body, { auth: false }),
    async uploadKeyBackup(record) {
      await rest.post('/keys/backup', record, { schema: KeyBackupUploadAnswerSchema });
    },
    keyBackup: () => rest.get(routePath(SERVICE_ROUTES.getKeyBackup), { schema: StoredKeyBackupSchema }),
    devices: () => rest.get('/users/me/devices', { schema: DeviceListSchema }),
    async revokeDevice(deviceId) {
      await rest.delete(`/users/me/devices/${pathSegment(deviceId)}`, { schema: DeviceRevokedSchema });
    },
    createAgent: (name) =>
      rest.post(routePath(SERVICE_ROUTES.createAgent), { name }, { schema: CreatedAgentSchema }),
    agents: () => rest.get(routePath(SERVICE_ROUTES.listAgents), { schema: z.array(AgentViewSchema) }),
    agent: (id) => rest.get(routePath(SERVICE_ROUTES.getAgent, { id }), { schema: AgentViewSchema }),
    regenerateToken: (id, emergency) =>
      rest.post(`${agentPath(id)}/token/regenerate`, { emergency }, { schema: TokenRegenerationSchema }),
    revokeToken: (id) => rest.delete(`${agentPath(id)}/token`, { schema: TokenRevocationSchema }),
    setWebhook: (id, url) =>
      rest.put(routePath(SERVICE_ROUTES.setWebhook, { id }), { url }, { schema: WebhookRegistrationSchema }),
    removeWebhook: (id) =>
      rest.delete(routePath(SERVICE_ROUTES.removeWebhook, { id }), { schema: WebhookStateSchema }),
    addAgent: (agentId) =>
      rest.post(
        routePath(SERVICE_ROUTES.createConversation),
        { agent_id: agentId },
        { schema: ConversationSchema },
      ),
    conversations: () =>
      rest.get(routePath(SERVICE_ROUTES.listConversations), { schema: ConversationListSchema }),
    conversation: (id) =>
      rest.get(routePath(SERVICE_ROUTES.getConversation, { id }), { schema: ConversationDetailSchema }),
    revokeConversation: (id) =>
      rest.delete(routePath(SERVICE_ROUTES.revokeConversation, { id }), { schema: ConversationSchema }),
    async sendMessage(conversationId, wireEnvelope, sendOptions = {}) {
      const res = await rest.requestWithResponse({
        method: 'POST',
        path: routePath(SERVICE_ROUTES.userSendMessage, { id: conversationId }),
        body: { wire_envelope: wireEnvelope },
        schema: SentMessageSchema,
        ...(sendOptions.signal === undefined ? {} : { signal: sendOptions.signal }),
      });
      return sentOf(res.data, res.status);
    },
    messages: (id, after, limit) =>
      rest.get(routePath(SERVICE_ROUTES.readMessages, { id }), {
        query: { after, limit },
        schema: StoredMessageListSchema,
      }),
    publicKeys: (id) =>
      rest.get(routePath(SERVICE_ROUTES.lookupKeys, { principal_id: id }), { schema: PrincipalKeysSchema }),
    systemKeys: () =>
      rest.get(routePath(SERVICE_ROUTES.systemKeys), { schema: PrincipalKeysSchema, auth: false }),
  };
}

/** `POST /auth/register` body (the device fields are added by the client). */
export function registerBody(o: RegisterOptions): Record<string, unknown> {
  return {
    email: o.email,
    code: o.code,
    account_password: o.accountPassword,
    display_name: o.displayName,
    device_locale: o.deviceLocale,
    turnstile_token: o.turnstileToken,
  };
}

/** `POST /auth/login` body. */
export function loginBody(o: LoginOptions): Record<string, unknown> {
  return { email: o.email, account_password: o.accountPassword, turnstile_token: o.turnstileToken };
}

/** The optional device fields every sign-in carries (the reference server's `device_id`, `device_name`). */
export function deviceFields(deviceId: string, deviceName: string | undefined): Record<string, string> {
  return { device_id: deviceId, ...(deviceName === undefined ? {} : { device_name: deviceName }) };
}

/**
 * Refuses a protection password under 8 characters before anything is sent,
 * so an account is never created whose key backup would then be refused.
 *
 * @throws {@link ValidationError}
 */
export function checkProtectionPassword(password: unknown): void {
  if (typeof password !== 'string' || [...password].length < 8) {
    throw new ValidationError({
      message: 'The protection password needs at least 8 characters.',
      issues: [{ path: ['protectionPassword'], message: 'at least 8 characters' }],
    });
  }
}
