/**
 * `UserClient`: the human side of the service. Sign-up (send-code,
 * register, keys generated here and backed up under the protection
 * password), sign-in (password or code), token refresh through the refresh
 * cookie, devices, agents (create, regenerate or revoke tokens, webhooks),
 * conversations, and end-to-end encrypted messages (send, read the inbox,
 * receive over the WebSocket).
 *
 * Access tokens last 300 s: a request answered `TOKEN_EXPIRED` refreshes the
 * session once and is retried (the REST client's `onTokenExpired` hook), and
 * an open WebSocket is renewed with `auth.renew`. Tokens, keys, passwords and
 * plaintext never appear in log lines or errors.
 *
 * @module
 */
import {
  RelayActions,
  type ForwardedCopy,
  type ForwardSource,
  type ReactionResult,
  type ReactOptions,
} from '../messaging/relay-actions.js';
import { UserArtifacts } from './user-artifacts.js';
import { UserStatus, type StatusUpdate } from './user-status.js';
import { FileTransfer } from '../files/file-transfer.js';
import { EventEmitter } from 'eventemitter3';
import type { Logger } from '../core/logger.js';
import { generateKeys } from '../crypto/keys.js';
import type { EnvelopePayload } from '../crypto/payload.js';
import { createRestClient, type RestClient } from '../transport/rest/client.js';
import { createKeyDirectory, type KeyDirectory } from '../messaging/key-directory.js';
import type { KeyPins } from '../messaging/key-pins.js';
import type { MemberWatch } from '../messaging/member-watch.js';
import { trustParts } from '../messaging/trust.js';
import { safetyNumber } from '../crypto/safety-number.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import type { SendOptions } from '../messaging/sender.js';
import { RefreshCookieJar } from './cookie-jar.js';
import {
  resolveUserClientOptions,
  type ResolvedUserClientOptions,
  type UserClientOptions,
} from './options.js';
import { UserSession, type SessionInfo } from './session.js';
import {
  checkProtectionPassword,
  createUserApi,
  deviceFields,
  loginBody,
  registerBody,
  type UserApi,
} from './user-api.js';
import { backUpKeys, restoreKeys, userKeyFingerprint, type UserKeySet } from './user-keys.js';
import { UserMessaging } from './user-messaging.js';
import { UserGrants, UserManifestReview, type DecisionSigner } from './user-capabilities.js';
import { signDecision } from '../crypto/decision.js';
import { createUserMigration, type UserMigration } from './migration/user-migration.js';
import { defaultBackend } from '../crypto/backend/node-default.js';
import { UserGroups } from '../messaging/groups.js';
import { handleGroupEvent } from './user-group-events.js';
import {
  agentInfo,
  conversationInfo,
  createdAgentInfo,
  deviceInfo,
  regenerationResult,
  webhookInfo,
  type AgentInfo,
  type ConversationInfo,
  type CreatedAgentInfo,
  type DeviceInfo,
  type TokenRegenerationResult,
  type WebhookInfo,
} from './views.js';
import type { SentMessageResult } from '../messaging/wire/results.js';
import type {
  CodeLoginOptions,
  InboxPage,
  InboxOptions,
  LoginOptions,
  RegisterOptions,
  ResetPasswordOptions,
  SendCodeOptions,
  StopTurnResult,
  UserClientEvents,
} from './user-client-types.js';
import type { ReceivedMessage } from './open-message.js';
import { readTurnStopped, TURN_STOP_TYPE } from '../core/protocol/turn-control.js';
import {
  deletePayload,
  editPayload,
  readMessageAction,
  receiptPayload,
} from '../core/protocol/message-actions.js';

/**
 * The owner's client.
 *
 * @example
 * ```ts
 * const client = new UserClient({ baseUrl: 'https://api.example.com', deviceId: savedDeviceId });
 * await client.sendCode({ email, scene: 'register', turnstileToken });
 * await client.register({ email, code, accountPassword, displayName: 'Ada', deviceLocale: 'en-GB',
 *   turnstileToken, protectionPassword });
 * const agent = await client.createAgent({ name: 'Helper' }); // agent.token: hand it to the agent
 * const { conversationId } = await client.addAgent(agent.agentId);
 * client.on('message', (m) => console.log(m.senderId, m.payload));
 * await client.connect();
 * await client.send(conversationId, { type: 'text', text: 'hello' });
 * ```
 */
export class UserClient extends EventEmitter<UserClientEvents> {
  /** Capability manifests of the user's agents: review, accept, reject (docs/manifests.md). */
  readonly manifests: UserManifestReview = new UserManifestReview(
    () => this.#rest,
    () => this.#decisionSigner(),
  );
  /** Data grants: requests from agents, grant, deny, revoke (docs/grants.md). */
  readonly grants: UserGrants = new UserGrants(
    () => this.#rest,
    () => this.#decisionSigner(),
  );
  /** Encrypted files: `upload(conversationId, source)` and `download(filePayload)` (docs/files.md). */
  readonly files: FileTransfer<SentMessageResult>;
  readonly #o: ResolvedUserClientOptions;
  readonly #rest: RestClient;
  readonly #api: UserApi;
  readonly #session: UserSession;
  readonly #directory: KeyDirectory;
  readonly #log: Logger;
  readonly #messaging: UserMessaging;
  readonly #pins: KeyPins;
  readonly #members: MemberWatch;
  readonly #relay: RelayActions;
  readonly #status: UserStatus;
  #keys: UserKeySet | undefined;
  /** Artifacts the user received: answer helpers (`from(message)`); live ones come as `artifact` events. */
  readonly artifacts: UserArtifacts;
  /** Device migration: `start()` on the old device, `join(code)` on the new one (docs/device-migration.md). */
  readonly migration: UserMigration;
  /** Groups: create, invite, join by code, leave, remove, members, key rotation (docs/groups.md). */
  readonly groups: UserGroups;

  /** @throws {@link ConfigurationError} naming the first bad option. */
  constructor(options: UserClientOptions) {
    super();
    const o = resolveUserClientOptions(options);
    this.#o = o;
    this.#log = o.logger;
    const jar = new RefreshCookieJar({
      baseUrl: o.baseUrl,
      clock: o.clock,
      insecureCookieOrigins: o.insecureCookieOrigins,
    });
    this.#session = new UserSession(() => this.#rest, jar, o.clock, o.logger, o.deviceId);
    this.#rest = createRestClient({
      baseUrl: o.baseUrl,
      credentials: () => this.#session.accessToken(),
      onTokenExpired: () => this.#session.refresh(),
      clock: o.clock,
      logger: o.logger,
      ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      // The service limits a user's uploads and object fetches (5 per second each) but not
      // the user's messages: uploads and fetches queue as the Agent's do (issue #28).
      rateLimits: { messages: false },
    });
    this.#api = createUserApi(this.#rest);
    this.files = new FileTransfer({ rest: () => this.#rest, send: (c, p) => this.send(c, p) });
    const trust = trustParts(
      o,
      o.logger,
      {
        keyChanged: (e) => this.#emit('keyChanged', e),
        keyRefused: (e) => this.#emit('keyRefused', e),
        membersChanged: (e) => this.#emit('membersChanged', e),
      },
      { clock: o.clock },
    );
    this.#pins = trust.pins;
    this.#members = trust.members;
    this.#directory = createKeyDirectory({
      api: this.#api,
      clock: o.clock,
      ttlMs: o.keyCacheTtlMs,
      pins: trust.pins,
    });
    this.#messaging = new UserMessaging({
      api: this.#api,
      session: this.#session,
      directory: this.#directory,
      options: o,
      WebSocket: options.WebSocket,
      backoff: options.backoff,
      log: o.logger,
      keys: () => this.#keys,
      members: trust.members,
      serviceEvent: (m) =>
        handleGroupEvent(m, this.groups, {
          groupUpdated: (e) => {
            this.#emit('groupUpdated', e);
            if (e.change === 'joined' && o.groupAdmission === 'auto') this.#admitJoin(e.conversationId);
          },
          groupKeyRotated: (e) => this.#emit('groupKeyRotated', e),
          messageFailed: (f) => this.#emit('messageFailed', f),
        }),
      emit: (event, ...args) => this.#emit(event, ...args),
      onReceived: (m) =>
        this.#action(m) || this.#status.received(m) || this.artifacts.received(m) || this.#turnStopped(m),
    });
    this.#status = new UserStatus({
      clock: o.clock,
      logger: o.logger,
      emit: (update) => this.#emit('status', update),
    });
    this.#relay = new RelayActions({
      rest: () => this.#rest,
      sender: async () => this.#messaging.sender(),
      discloseKey: (wire) => this.#messaging.discloseKey(wire),
    });
    this.artifacts = new UserArtifacts({
      rest: () => this.#rest,
      sender: () => this.#messaging.sender(),
      logger: o.logger,
      emitArtifact: (a) => this.#emit('artifact', a),
      emitReaction: (r) => this.#emit('reaction', r),
    });
    this.groups = new UserGroups({
      rest: this.#rest,
      directory: this.#directory,
      signer: () => {
        const info = this.#session.info;
        return info === undefined ? undefined : { id: info.userId, signing: this.#keys?.signing };
      },
    });
    this.#session.onToken((token) => this.#messaging.renew(token));
    this.migration = createUserMigration({
      rest: this.#rest,
      backend: defaultBackend(),
      clock: o.clock,
      session: () => this.#requireSession(),
      keys: () => this.#keys,
      restore: (password, signing) => restoreKeys(this.#api, password, o.keyBackup, signing),
      adopt: (keys) => {
        this.#keys = keys;
        return userKeyFingerprint(keys);
      },
    });
  }

  /**
   * As the group's owner (in its signed roster), admits the members who
   * joined by code. Failures (not the owner, a refused roster, the network)
   * are logged: the owner can call `groups.admit` itself.
   */
  #admitJoin(conversationId: string): void {
    void (async () => {
      const me = this.#session.info?.userId;
      const roster = me === undefined ? undefined : await this.groups.roster(conversationId);
      if (roster?.owner_id !== me || this.#keys?.signing === undefined) return;
      const admitted = await this.groups.admit(conversationId);
      if (admitted.length > 0)
        this.#log.info('group members admitted', { conversationId, admitted: admitted.length });
    })().catch((err: unknown) =>
      this.#log.warn('group join not admitted', { conversationId, error: (err as Error).name }),
    );
  }

  /** The REST client in use (events `rateLimited`, `retry`). */
  get rest(): RestClient {
    return this.#rest;
  }

  /** Who is signed in (no secrets), or undefined. */
  get session(): SessionInfo | undefined {
    return this.#session.info;
  }

  /** This client's device id (persist it to sign in as the same device again). */
  get deviceId(): string {
    return this.#session.info?.deviceId ?? this.#o.deviceId;
  }

  /** Fingerprint of the user's X25519 public key, once keys are set up or unlocked. */
  get keyFingerprint(): string | undefined {
    return this.#keys === undefined ? undefined : userKeyFingerprint(this.#keys);
  }

  // ---- sign-up and sign-in ----

  /** `POST /auth/send-code`: the service e-mails a 6-digit code. */
  async sendCode(o: SendCodeOptions): Promise<{ expiresInSeconds: number }> {
    const a = await this.#api.sendCode({ email: o.email, scene: o.scene, turnstile_token: o.turnstileToken });
    return { expiresInSeconds: a.expires_in_seconds };
  }

  /**
   * Registers: `POST /auth/register`, then generates the X25519 and Ed25519
   * pairs on this device and uploads their backup encrypted under
   * `protectionPassword` (which never leaves the process).
   *
   * @throws {@link ServiceError} (e.g. `VALIDATION_ERROR`, `TURNSTILE_FAILED`); {@link ValidationError}
   *   for a protection password under 8 characters (checked before anything is sent).
   */
  async register(o: RegisterOptions): Promise<SessionInfo> {
    checkProtectionPassword(o.protectionPassword);
    const info = await this.#signIn('/auth/register', registerBody(o));
    await this.setUpKeys(o.protectionPassword);
    return info;
  }

  /** Password sign-in (`POST /auth/login`); unlocks the keys too when `protectionPassword` is given. */
  async login(o: LoginOptions): Promise<SessionInfo> {
    const info = await this.#signIn('/auth/login', loginBody(o));
    if (o.protectionPassword !== undefined) await this.unlockKeys(o.protectionPassword);
    return info;
  }

  /** Code sign-in (`POST /auth/login-code`, after `sendCode` with scene `login`). */
  async loginWithCode(o: CodeLoginOptions): Promise<SessionInfo> {
    const info = await this.#signIn('/auth/login-code', { email: o.email, code: o.code });
    if (o.protectionPassword !== undefined) await this.unlockKeys(o.protectionPassword);
    return info;
  }

  /** `POST /auth/reset-password` (after `sendCode` with scene `reset`). The keys are not affected. */
  async resetPassword(o: ResetPasswordOptions): Promise<void> {
    await this.#api.resetPassword({
      email: o.email,
      code: o.code,
      new_account_password: o.newAccountPassword,
    });
  }

  /**
   * A new access token through the refresh cookie (done automatically on `TOKEN_EXPIRED`).
   *
   * @throws {@link ServiceError} `TOKEN_EXPIRED` when the refresh token expired or was revoked: sign in again.
   */
  async refresh(): Promise<SessionInfo> {
    await this.#session.refresh();
    return this.#session.info!;
  }

  /** Forgets the session, the cookie and the keys in memory, and closes the WebSocket. */
  async signOut(): Promise<void> {
    await this.disconnect();
    this.#session.clear();
    this.#keys = undefined;
    this.#directory.invalidate();
  }

  async #signIn(path: string, body: Record<string, unknown>): Promise<SessionInfo> {
    const device = deviceFields(this.#o.deviceId, this.#o.deviceName);
    const info = this.#session.accept(await this.#api.signIn(path, { ...body, ...device }));
    this.#log.info('signed in', { userId: info.userId, deviceId: info.deviceId });
    return info;
  }

  // ---- keys ----

  /**
   * Generates the user's key pairs (unless already in memory) and uploads
   * their backup under `protectionPassword` (steps 3 and 4 of registration).
   *
   * @returns the X25519 key fingerprint.
   */
  async setUpKeys(protectionPassword: string): Promise<string> {
    const keys =
      this.#keys?.signing === undefined
        ? generateKeys()
        : { encryption: this.#keys.encryption, signing: this.#keys.signing };
    await backUpKeys(this.#api, keys, protectionPassword, this.#requireSession().deviceId, this.#o.keyBackup);
    this.#keys = keys;
    return userKeyFingerprint(keys);
  }

  /**
   * Restores the key pairs from the service's backup (`GET /keys/backup`).
   *
   * @param options.expectedSigningPublicKey - the user's Ed25519 public key when
   *   known (from the key directory or an earlier session): a minimal-form backup
   *   (no signing key) or one with another signing key is then refused as a
   *   possible downgrade by the service.
   * @throws {@link CryptoError} `KEY_BACKUP_PASSWORD_INVALID` for a wrong protection password;
   *   `KEY_BACKUP_INVALID` for a full backup stripped to the minimal form, or one that does not fit
   *   `expectedSigningPublicKey`.
   */
  async unlockKeys(
    protectionPassword: string,
    options: { readonly expectedSigningPublicKey?: Uint8Array } = {},
  ): Promise<string> {
    this.#keys = await restoreKeys(
      this.#api,
      protectionPassword,
      this.#o.keyBackup,
      options.expectedSigningPublicKey,
    );
    return userKeyFingerprint(this.#keys);
  }

  // ---- devices ----

  /** `GET /users/me/devices`. */
  async devices(): Promise<DeviceInfo[]> {
    const current = this.#session.info?.deviceId;
    return (await this.#api.devices()).map((d) => deviceInfo(d, current));
  }

  /** `DELETE /users/me/devices/:id`: signs that device out (its WebSockets get `session.invalidated`). */
  async revokeDevice(deviceId: string): Promise<void> {
    await this.#api.revokeDevice(deviceId);
  }

  // ---- agents ----

  /** `POST /agents`. The answer carries the agent token, shown once. */
  async createAgent(o: { name: string }): Promise<CreatedAgentInfo> {
    return createdAgentInfo(await this.#api.createAgent(o.name));
  }

  /** `GET /agents`. */
  async agents(): Promise<AgentInfo[]> {
    return (await this.#api.agents()).map(agentInfo);
  }

  /** `GET /agents/:id`. */
  async agent(agentId: string): Promise<AgentInfo> {
    return agentInfo(await this.#api.agent(agentId));
  }

  /**
   * `POST /agents/:id/token/regenerate`. Normal: the old token and public key
   * stay valid 7 days. Emergency: both are invalid at once.
   *
   * @throws {@link RateLimitError} `TOKEN_ROTATION_RATE_LIMITED` after 5 in 24 h.
   */
  async regenerateAgentToken(
    agentId: string,
    o: { emergency?: boolean } = {},
  ): Promise<TokenRegenerationResult> {
    return regenerationResult(await this.#api.regenerateToken(agentId, o.emergency === true));
  }

  /** `DELETE /agents/:id/token`: the agent has no token until the next regeneration. */
  async revokeAgentToken(agentId: string): Promise<{ disconnected: number }> {
    const r = await this.#api.revokeToken(agentId);
    return { disconnected: r.disconnected ?? 0 };
  }

  /** `PUT /agents/:id/webhook`: webhook mode; the secret is shown once. */
  async setAgentWebhook(agentId: string, url: string): Promise<WebhookInfo> {
    return webhookInfo(await this.#api.setWebhook(agentId, url));
  }

  /** `DELETE /agents/:id/webhook`: back to WebSocket mode. */
  async removeAgentWebhook(agentId: string): Promise<void> {
    await this.#api.removeWebhook(agentId);
  }

  // ---- conversations and messages ----

  /** `POST /conversations`: adds the agent (creates or re-establishes the 1:1 conversation). */
  async addAgent(agentId: string): Promise<ConversationInfo> {
    const c = conversationInfo(await this.#api.addAgent(agentId));
    this.#directory.invalidateConversation(c.conversationId);
    return c;
  }

  /** `GET /conversations`. */
  async conversations(): Promise<ConversationInfo[]> {
    return (await this.#api.conversations()).map(conversationInfo);
  }

  /** `DELETE /conversations/:id`: revokes the relation (the agent gets `relation.revoked`). */
  async revokeConversation(conversationId: string): Promise<ConversationInfo> {
    return conversationInfo(await this.#api.revokeConversation(conversationId));
  }

  /**
   * Seals `payload` to the conversation's members (the agent's current key,
   * plus keys in grace, plus the user's own) and posts it.
   *
   * @throws {@link ConfigurationError} before sign-in or before keys are set up or unlocked.
   * @throws {@link ServiceError} e.g. `CONVERSATION_NOT_FOUND`, `RELATION_REVOKED`, `FORBIDDEN`;
   * the signal's reason when `options.signal` aborts first.
   */
  async send(
    conversationId: string,
    payload: EnvelopePayload,
    options: SendOptions = {},
  ): Promise<SentMessageResult> {
    return this.#messaging.send(conversationId, payload, options);
  }

  /**
   * Stops the agent's running turn in a conversation: sends a sealed,
   * signed `turn.stop` that the agent handles at once (not behind the
   * running handler). The handler's `ctx.signal` aborts, its reply streams
   * end (`streamError` reason `aborted`, detail `stopped`), and the agent
   * answers with `turnStopped` (`turns: 0` when nothing was running).
   *
   * @throws what {@link UserClient.send} throws.
   * @example
   * ```ts
   * user.on('turnStopped', (e) => console.log(`${e.agentId} stopped ${e.turns} turn(s)`));
   * const { stopId } = await user.stopTurn(conversationId);
   * ```
   */
  async stopTurn(conversationId: string, options: SendOptions = {}): Promise<StopTurnResult> {
    const stopId = globalThis.crypto.randomUUID();
    const sent = await this.send(conversationId, { type: TURN_STOP_TYPE, stop_id: stopId }, options);
    return { stopId, sent };
  }

  /**
   * Edits one of the user's own messages: sends a sealed, signed
   * `message.edit` naming it, with the new payload. Receivers emit
   * `messageEdited` and accept it only from the original sender
   * (docs/user-client.md, "Edits, deletes and read receipts").
   *
   * @throws what {@link UserClient.send} throws; {@link ValidationError} when `messageId` is not an id.
   * @example
   * ```ts
   * const sent = await user.send(conversationId, { type: 'text', text: 'see you at 3' });
   * await user.edit(conversationId, sent.messageId, { type: 'text', text: 'see you at 4' });
   * ```
   */
  async edit(
    conversationId: string,
    messageId: string,
    payload: EnvelopePayload,
    options: SendOptions = {},
  ): Promise<SentMessageResult> {
    const sent = await this.send(conversationId, editPayload(messageId, payload), options);
    this.#messaging.applyOwn(conversationId, messageId, payload);
    return sent;
  }

  /**
   * Deletes one of the user's own messages (a sealed, signed
   * `message.delete`); receivers emit `messageDeleted`, from the original
   * sender only, and hide it.
   *
   * @throws what {@link UserClient.send} throws; {@link ValidationError} when `messageId` is not an id.
   */
  async delete(
    conversationId: string,
    messageId: string,
    options: SendOptions = {},
  ): Promise<SentMessageResult> {
    const sent = await this.send(conversationId, deletePayload(messageId), options);
    this.#messaging.applyOwn(conversationId, messageId, undefined);
    return sent;
  }

  /**
   * Tells the conversation's members that the user read `messageIds` (a
   * sealed `receipt`, at most 100 ids). Only with the `readReceipts`
   * option: without it nothing is sent and it resolves `undefined`.
   *
   * @throws what {@link UserClient.send} throws; {@link ValidationError} for no ids, more than 100, or a bad id.
   */
  async markRead(
    conversationId: string,
    messageIds: readonly string[],
    options: SendOptions = {},
  ): Promise<SentMessageResult | undefined> {
    const payload = receiptPayload(messageIds);
    if (!this.#o.readReceipts) return undefined;
    return this.send(conversationId, payload, options);
  }

  /** Emits a received edit, delete or receipt (true: consumed, never a `message`). */
  #action(m: ReceivedMessage): boolean {
    const action = readMessageAction(m.payload);
    if (action === undefined) return false;
    const where = { conversationId: m.conversationId };
    if (action === 'invalid') {
      this.#log.warn('dropped a message action that does not parse', where);
      return true;
    }
    const outcome = this.#messaging.resolveAction(m, action);
    if (outcome.kind === 'edited') this.#emit('messageEdited', outcome.event);
    else if (outcome.kind === 'deleted') this.#emit('messageDeleted', outcome.event);
    else if (outcome.kind === 'read') this.#emit('messageRead', outcome.event);
    else if (outcome.why === 'not_the_sender')
      this.#log.warn('refused an edit or delete of a message sent by someone else', where);
    return true;
  }

  /** Emits an agent's answer to a stop as `turnStopped` (true: consumed). */
  #turnStopped(m: ReceivedMessage): boolean {
    const answer = readTurnStopped(m.payload);
    if (answer === undefined || m.senderId === this.#session.info?.userId) return false;
    this.#emit('turnStopped', {
      conversationId: m.conversationId,
      agentId: m.senderId,
      stopId: answer.stop_id,
      turns: answer.stopped,
      messageId: m.messageId,
    });
    return true;
  }

  /**
   * Forwards an opened message or artifact (`artifact.message`) to up to 10
   * of the user's conversations, re-sealed for each.
   *
   * @throws {@link ServiceError} `FORWARD_TARGET_LIMIT` (checked before sending too),
   * `ARTIFACT_NOT_FORWARDABLE`, `MESSAGE_NOT_FOUND`, `CONVERSATION_NOT_FOUND`.
   */
  async forward(source: ForwardSource, targets: readonly string[]): Promise<ForwardedCopy[]> {
    return this.#relay.forward(source, targets);
  }

  /**
   * Reacts to a message with an emoji (sealed; the agent gets `reaction.update`
   * over WebSocket), or withdraws it with `{ remove: true }`.
   *
   * @throws {@link ValidationError} for something that is not an emoji; {@link ServiceError} `MESSAGE_NOT_FOUND`.
   */
  async react(
    conversationId: string,
    messageId: string,
    emoji: string,
    options?: ReactOptions,
  ): Promise<ReactionResult> {
    return this.#relay.react(conversationId, messageId, emoji, options);
  }

  /**
   * Reads and opens the conversation's stored messages with `seq > after`,
   * oldest first. Messages that fail to open are listed in `failed`, never thrown.
   *
   * What a read returns is history as the service lists it (each message
   * has `event: 'inbox'`): every message is signature-checked, bound to this
   * conversation and to its signed event type and sender, but not held to the
   * replay window (old messages are legitimately old) nor to the memory of
   * live deliveries, so a message already received live is returned again.
   * The service chooses which stored messages a page lists and their `seq`
   * (it can leave some out); it cannot make one signed message count twice in
   * a page: a second copy is in `failed` as `DECRYPT_FAILURE` reason `duplicate`.
   */
  async messages(conversationId: string, options: InboxOptions = {}): Promise<InboxPage> {
    return this.#messaging.messages(conversationId, options);
  }

  /**
   * Opens the user WebSocket; resolves on `auth.ok`. Received messages are
   * opened and emitted as `message` (failures as `messageFailed`). With
   * acknowledged delivery (option `acks`, default on) every reconnect first
   * delivers what this device missed, each message once and in order per
   * conversation; the access token is renewed at 80 % of its lifetime.
   *
   * @throws {@link ConfigurationError} before sign-in; the socket's fatal error when it stops before `auth.ok`.
   */
  async connect(): Promise<void> {
    return this.#messaging.connect();
  }

  /**
   * Accepts the key change refused for `peerId` under `keyChangePolicy: 'block'`
   * (after the safety numbers were compared out of band). False when none was waiting.
   */
  confirmKey(peerId: string): Promise<boolean> {
    return this.#pins.confirmKey(peerId);
  }

  /** Accepts the new members refused for a conversation under `'block'`. False when none were waiting. */
  confirmMembers(conversationId: string): boolean {
    return this.#members.confirmMembers(conversationId);
  }

  /**
   * The safety number of the signed-in user and `peerId` (60 digits in 12
   * groups of 5), to compare with the one the peer shows.
   *
   * @throws {@link ConfigurationError} before sign-in or without keys in memory;
   *   {@link CryptoError} `KEY_CHANGED` under `'block'` while a change waits for `confirmKey`.
   */
  async safetyNumber(peerId: string): Promise<string> {
    const { userId } = this.#requireSession();
    const keys = this.#keys;
    if (keys === undefined) {
      throw new ConfigurationError({
        message: 'No keys in memory: call register(), setUpKeys() or unlockKeys() first.',
      });
    }
    const peer = await this.#directory.keys(peerId);
    return safetyNumber(
      { id: userId, signing: keys.signing?.publicKey, encryption: keys.encryption.publicKey },
      // Every key this client wraps to for the peer: its current keys and its vouched generations in grace.
      {
        id: peerId,
        signing: peer.signing,
        encryption: peer.encryption,
        retired: peer.retired.map((r) => r.encryption),
      },
    );
  }

  /**
   * Signs the user's decisions (grants, manifests) with the user's Ed25519 key.
   *
   * @throws {@link ConfigurationError} before sign-in or without a signing key in memory.
   */
  #decisionSigner(): DecisionSigner {
    const { userId } = this.#requireSession();
    const signing = this.#keys?.signing;
    if (signing === undefined) {
      throw new ConfigurationError({
        message:
          'No signing key in memory: call register(), setUpKeys() or unlockKeys() (with a full-form backup) before deciding.',
      });
    }
    return {
      userId,
      now: () => this.#o.clock.now(),
      sign: (statement) => signDecision(statement, signing),
    };
  }

  /** Closes the WebSocket (no reconnect). */
  async disconnect(): Promise<void> {
    await this.#messaging.disconnect();
    this.#status.clear();
  }

  /**
   * The agents' statuses shown now ("working", "searching the web…") in
   * `conversationId`, or in every conversation; the `status` event tells
   * each change (docs/user-client.md, "Status").
   */
  statuses(conversationId?: string): StatusUpdate[] {
    return this.#status.current(conversationId);
  }

  /** Emits a client event; a throwing listener is logged and ignored. */
  #emit<E extends keyof UserClientEvents>(event: E, ...args: UserClientEvents[E]): void {
    try {
      (this.emit as (e: E, ...a: UserClientEvents[E]) => boolean)(event, ...args);
    } catch (err) {
      this.#log.warn('a UserClient listener threw', { event, error: (err as Error)?.name });
    }
  }

  #requireSession(): SessionInfo {
    return this.#messaging.requireSession();
  }
}
