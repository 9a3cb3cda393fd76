/**
 * `createTestWorld`: a reference server, signed-up users, agents under test
 * in conversations with them, and groups, in one call, with helpers to drive
 * and observe them from a vitest, Jest or node:test suite.
 *
 * @module
 */
import { Agent, type AgentMode, type AnyAgentEvent, type UserClient } from 'agent-messaging-sdk';
import type { Clock } from 'agent-messaging-sdk/protocol';
import { createAgentApi, ensureAgentKeys, type AgentApi } from 'agent-messaging-sdk/protocol';
import type { DeliveryFinalStatus, DeliveryLogEntry } from 'agent-messaging-sdk/protocol';
import { MemoryKeyStore, type EnvelopePayload } from 'agent-messaging-sdk/crypto';
import { startReferenceServer, type ReferenceServer } from '../server/index.js';
import { serverClock } from './clock.js';
import { startRelay, type Relay } from './relay.js';
import {
  DEFAULT_TEST_WORLD_OPTIONS,
  type TestWorldAgentOptions,
  type TestWorldGroupOptions,
  type TestWorldOptions,
  type TestWorldUserOptions,
} from './test-world-options.js';
import {
  pollUntil,
  signInDevice,
  signUpUser,
  WORLD_PROTECTION_PASSWORD,
  startWebhookHost,
  TestWorldError,
  type ClientSetting,
  type WebhookHost,
} from './test-world-parts.js';
import {
  describeReply,
  recordReplies,
  type ArtifactReply,
  type ReplyKind,
  type ReplyOfKind,
  type TestReply,
} from './test-world-replies.js';

/** Options of the `waitFor…` helpers. */
export interface WaitOptions {
  /**
   * Real-time limit of the wait, in ms.
   * @defaultValue the world's `timeoutMs` (`3000`)
   */
  readonly timeoutMs?: number;
}

/** Options of {@link TestWorld.migrateUser}. */
export interface MigrateUserOptions extends WaitOptions {
  /** The new device's name. @defaultValue `'New device'` */
  readonly deviceName?: string;
  /** App data the old device sends along (`offer.complete({ extras })`). */
  readonly extras?: Readonly<Record<string, unknown>>;
}

/** The outcome of {@link TestWorld.migrateUser}. */
export interface WorldMigration {
  /** The new device: signed in, holding the account's keys, not connected (call `connect()`); the world signs it out on `close()`. */
  readonly client: UserClient;
  /** The verification string both devices showed (the world checked that they are equal). */
  readonly verification: string;
  /** The new device's key fingerprint: the old device's. */
  readonly keyFingerprint: string;
  /** The extras the old device sent. */
  readonly extras: Readonly<Record<string, unknown>>;
}

/** Options of {@link TestWorld.waitForDelivery}. */
export interface DeliveryWaitOptions extends WaitOptions {
  /** The agent whose events to watch. @defaultValue `world.agent` */
  readonly agent?: WorldAgent;
}

/** Options of {@link TestWorld.waitForReply}. */
export interface ReplyWaitOptions<K extends ReplyKind = ReplyKind> extends WaitOptions {
  /**
   * The kind expected. The next reply of another kind fails the wait with a
   * `TestWorldError` naming both, rather than being passed over.
   * @defaultValue any kind
   */
  readonly kind?: K;
  /** The agent that replies. @defaultValue `world.agent` */
  readonly from?: WorldAgent;
  /** The user who receives. @defaultValue the agent's owner */
  readonly to?: WorldUser;
  /** Only replies in this conversation (a group's, say). @defaultValue any conversation */
  readonly conversationId?: string;
}

/** Options of the helpers that act as a user. */
export interface AsUserOptions {
  /** Who acts. @defaultValue `world.user` */
  readonly user?: WorldUser;
  /** Where. @defaultValue `world.conversationId` (the first user's conversation with the first agent) */
  readonly conversationId?: string;
}

/** What {@link TestWorld.expectDeliveries} checks in the agent's delivery logs. */
export interface DeliveryExpectation {
  /** Number of matching entries expected. */
  readonly count: number;
  /** Only entries of this event type, e.g. `'message.new'`. */
  readonly eventType?: string;
  /** Only entries with this final status. */
  readonly finalStatus?: DeliveryFinalStatus;
}

/** A user of the world. */
export interface WorldUser {
  /** The display name (how groups and agent owners name the user). */
  readonly name: string;
  readonly userId: string;
  /** The signed-up `UserClient`: keys in memory, on the world's clock, connected unless asked not to be. */
  readonly client: UserClient;
  /** Every reply the user received from agents, in arrival order. */
  readonly replies: readonly TestReply[];
}

/** An agent of the world. */
export interface WorldAgent {
  readonly name: string;
  readonly agentId: string;
  /** The `Agent` under test. */
  readonly agent: Agent;
  readonly mode: AgentMode;
  /** The user who created it. */
  readonly owner: WorldUser;
  /** The conversation between the agent and its owner. */
  readonly conversationId: string;
  /** Every event the agent handled, in order (recorded after its own handlers ran). */
  readonly events: readonly AnyAgentEvent[];
  /** Errors of its `fatal` event (the world listens, so no exit code is set). */
  readonly fatalErrors: readonly Error[];
}

/** A group of the world. */
export interface WorldGroup {
  readonly name: string;
  readonly conversationId: string;
  /** The user who created it. */
  readonly owner: WorldUser;
  /** Display names of its members. */
  readonly members: readonly string[];
}

interface MutableUser extends WorldUser {
  readonly replies: TestReply[];
  replyCursor: number;
}

interface MutableAgent extends WorldAgent {
  readonly events: AnyAgentEvent[];
  readonly fatalErrors: Error[];
  readonly api: AgentApi;
  readonly hook: WebhookHost | undefined;
  eventCursor: number;
}

/** The handles the world keeps. */
interface WorldParts {
  readonly server: ReferenceServer;
  readonly relay: Relay | undefined;
  readonly clock: Clock;
  readonly timeoutMs: number;
}

/**
 * A running test world. Create it with {@link createTestWorld}; close it in
 * `afterEach`/`after` with {@link TestWorld.close}.
 */
export class TestWorld {
  /** The reference server (control API under `server.control`). */
  readonly server: ReferenceServer;
  /**
   * The relay every client goes through, when created with `relay: true`:
   * records every byte, stages faults. Undefined otherwise.
   */
  readonly relay: Relay | undefined;
  /**
   * The world's mixed clock: the service's virtual `now()`, real timers,
   * rate-window waits satisfied by moving virtual time. Build extra clients on it.
   */
  readonly clock: Clock;
  readonly #parts: WorldParts;
  readonly #users: MutableUser[] = [];
  readonly #devices: UserClient[] = [];
  readonly #agents: MutableAgent[] = [];
  readonly #groups: WorldGroup[] = [];

  /** @internal Use {@link createTestWorld}. */
  constructor(parts: WorldParts) {
    this.#parts = parts;
    this.server = parts.server;
    this.relay = parts.relay;
    this.clock = parts.clock;
  }

  /** Every user, the first being {@link TestWorld.user}. */
  get users(): readonly WorldUser[] {
    return this.#users;
  }
  /** Every agent, the first being {@link TestWorld.agent}. */
  get agents(): readonly WorldAgent[] {
    return this.#agents;
  }
  /** Every group, in creation order. */
  get groups(): readonly WorldGroup[] {
    return this.#groups;
  }
  /** The first user's client: signed up, keys in memory, connected, in {@link TestWorld.conversationId}. */
  get user(): UserClient {
    return this.#first(this.#users, 'user').client;
  }
  /** The first agent under test. */
  get agent(): Agent {
    return this.#first(this.#agents, 'agent').agent;
  }
  /** The first agent's id. */
  get agentId(): string {
    return this.#first(this.#agents, 'agent').agentId;
  }
  /** The conversation between the first agent and its owner. */
  get conversationId(): string {
    return this.#first(this.#agents, 'agent').conversationId;
  }
  /** Every event the first agent handled, in order (recorded after its own handlers ran). */
  get events(): readonly AnyAgentEvent[] {
    return this.#first(this.#agents, 'agent').events;
  }

  /**
   * The user, agent or group with this display name.
   *
   * @throws {@link TestWorldError} when the world has none of that name.
   */
  named(name: string): WorldUser | WorldAgent | WorldGroup {
    const found =
      this.#users.find((u) => u.name === name) ??
      this.#agents.find((a) => a.name === name) ??
      this.#groups.find((g) => g.name === name);
    if (found === undefined)
      throw new TestWorldError(`The world has no user, agent or group named "${name}".`);
    return found;
  }

  /**
   * Signs another user up (real flow, cheap key backup), on the world's
   * clock and through the relay if any, and connects it unless `connect: false`.
   */
  async addUser(options: string | TestWorldUserOptions = {}): Promise<WorldUser> {
    const o = typeof options === 'string' ? { name: options } : options;
    const name = o.name ?? numbered(DEFAULT_TEST_WORLD_OPTIONS.userName, this.#users.length);
    const setting = this.#setting();
    const client = await signUpUser(
      this.server,
      name,
      o.readReceipts === undefined ? setting : { ...setting, readReceipts: o.readReceipts },
    );
    const user: MutableUser = {
      name,
      userId: client.session?.userId ?? '',
      client,
      replies: [],
      replyCursor: 0,
    };
    recordReplies(client, user.replies);
    this.#users.push(user);
    if (o.connect ?? true) await client.connect();
    return user;
  }

  /**
   * Creates an agent for its owner (default: the first user), registers its
   * keys, opens a conversation between them and connects it unless
   * `connect: false`. In webhook mode the world starts the HTTP receiver
   * first, registers its URL (which creates the signing secret) and wires
   * `agent.webhookHandler()` to it.
   *
   * @throws {@link TestWorldError} when the owner named is not a user of the world.
   */
  async addAgent(options: TestWorldAgentOptions = {}): Promise<WorldAgent> {
    const d = DEFAULT_TEST_WORLD_OPTIONS;
    const owner = this.#userNamed(options.owner) ?? this.#first(this.#users, 'user');
    const name = options.name ?? numbered(d.agent.name, this.#agents.length);
    const mode = options.mode ?? d.agent.mode;
    const created = await owner.client.createAgent({ name });
    const { agentId, token } = created;
    const { baseUrl } = this.#setting();
    const api = createAgentApi({ baseUrl, agentId, token });
    const keyStore = options.options?.keyStore ?? new MemoryKeyStore();
    const clock = options.options?.clock ?? this.clock;
    await ensureAgentKeys({ api, store: keyStore, clock }); // the user can add the agent only once its keys exist
    const agent = new Agent({
      clock,
      reconnect: d.reconnect,
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
      shutdownSignals: false,
      ...options.options,
      baseUrl,
      agentId,
      token,
      mode,
      keyStore,
    });
    const fatalErrors: Error[] = [];
    agent.on('fatal', (error) => void fatalErrors.push(error));
    let hook: WebhookHost | undefined;
    if (mode === 'webhook') {
      hook = await startWebhookHost();
      const { secret } = await this.server.control.setWebhook(agentId, { url: hook.url });
      agent.webhook({ ...options.options?.webhook, secret });
      hook.use(agent.webhookHandler());
    }
    const events: AnyAgentEvent[] = [];
    agent.on('event', (event) => void events.push(event));
    const record: MutableAgent = {
      name,
      agentId,
      agent,
      mode,
      owner,
      conversationId: '',
      events,
      fatalErrors,
      api,
      hook,
      eventCursor: 0,
    };
    this.#agents.push(record);
    if (options.connect ?? d.agent.connect) await agent.connect();
    const { conversationId } = await owner.client.addAgent(agentId);
    (record as { conversationId: string }).conversationId = conversationId;
    return record;
  }

  /**
   * Creates a group: its first user member creates it with the agents
   * named (theirs), invites the other users, who join, and admits them.
   *
   * @throws {@link TestWorldError} for a member the world does not have, or no user member.
   */
  async addGroup(options: TestWorldGroupOptions): Promise<WorldGroup> {
    const users = options.members.map((m) => this.#userNamed(m)).filter((u) => u !== undefined);
    const agents = options.members.map((m) => this.#agents.find((a) => a.name === m));
    const unknown = options.members.filter(
      (m, i) => this.#userNamed(m) === undefined && agents[i] === undefined,
    );
    if (unknown.length > 0)
      throw new TestWorldError(`Group "${options.name}": no member named ${unknown.join(', ')}.`);
    const [owner, ...others] = users;
    if (owner === undefined)
      throw new TestWorldError(`Group "${options.name}" needs a user member (its owner).`);
    const agentIds = agents.filter((a) => a !== undefined).map((a) => a.agentId);
    const group = await owner.client.groups.create({ name: options.name, agentIds });
    const id = group.conversationId;
    if (others.length > 0) {
      const { code } = await owner.client.groups.invite(id);
      for (const user of others) await user.client.groups.join(code);
      await owner.client.groups.admit(id);
    }
    const made: WorldGroup = { name: options.name, conversationId: id, owner, members: options.members };
    this.#groups.push(made);
    return made;
  }

  /**
   * Moves a user (default the first) to a new device through the real
   * device migration: the new device signs in with the account password,
   * the old one starts a session, the new one joins with its code, both
   * verification strings are compared, the old device completes and the new
   * one receives the keys with the protection password. Both sides run here,
   * side by side: awaiting `migration.join(code)` before the old device's
   * `offer.waitForJoin()` runs would deadlock a single process (each waits
   * for the other). The sessions poll every 10 ms of real time.
   *
   * @throws {@link TestWorldError} when the two strings differ (the session is cancelled) or a step
   *   does not finish within `timeoutMs`; the SDK's own errors (e.g. `CryptoError`) as they are.
   */
  async migrateUser(user?: WorldUser, options: MigrateUserOptions = {}): Promise<WorldMigration> {
    const record = user === undefined ? this.#first(this.#users, 'user') : this.#userRecord(user);
    const timeoutMs = options.timeoutMs ?? this.#parts.timeoutMs;
    const signal = AbortSignal.timeout(timeoutMs);
    const wait = { pollIntervalMs: 10, signal };
    const device = await signInDevice(record.client, options.deviceName ?? 'New device', this.#setting());
    this.#devices.push(device);
    const offer = await record.client.migration.start();
    try {
      const [joined, shown] = await Promise.all([
        device.migration.join(offer.code, wait),
        offer.waitForJoin(wait),
      ]);
      if (joined.verification !== shown.verification) {
        throw new TestWorldError(
          `The two devices of user "${record.name}" show different verification strings ` +
            `(${joined.verification} and ${shown.verification}).`,
        );
      }
      const [, result] = await Promise.all([
        offer.complete(options.extras === undefined ? {} : { extras: options.extras }),
        joined.receive({ protectionPassword: WORLD_PROTECTION_PASSWORD, ...wait }),
      ]);
      return { client: device, verification: shown.verification, ...result };
    } catch (err) {
      await offer.cancel().catch(() => undefined);
      if (signal.aborted && !(err instanceof TestWorldError)) {
        throw new TestWorldError(
          `Timed out after ${timeoutMs} ms migrating user "${record.name}" to a new device.`,
          { cause: err },
        );
      }
      throw err;
    }
  }

  /**
   * Closes a user's WebSocket (default the first user's) and resolves once
   * the service noticed: it holds no open connection of the user any more,
   * so what depends on the user being offline (`client_offline` for a
   * stream, a notice) follows. `user.client.disconnect()` alone resolves
   * when the client's side is closed, which may be earlier.
   *
   * @throws {@link TestWorldError} when the service still counts a connection after `timeoutMs`.
   */
  async disconnectUser(user?: WorldUser, options: WaitOptions = {}): Promise<void> {
    const record = user === undefined ? this.#first(this.#users, 'user') : this.#userRecord(user);
    await record.client.disconnect();
    await pollUntil(
      () => (this.server.control.openConnections(record.userId) === 0 ? true : undefined),
      `the service to notice that user "${record.name}" disconnected`,
      options.timeoutMs ?? this.#parts.timeoutMs,
    );
  }

  /**
   * Moves the service's virtual time forward (token expiry, grace periods,
   * the webhook retry schedule) and waits until webhook deliveries that
   * became due are done. Every client of the world reads the same time
   * (webhook timestamps, replay and de-duplication windows agree); their
   * timers (reconnects, retries) run on real time.
   *
   * @throws `ConfigurationError` when the server is not in virtual time.
   */
  async advanceTime(ms: number): Promise<void> {
    this.server.advanceTime(ms);
    await this.server.control.deliveryIdle();
  }

  /** A user (default the first) sends `text` (or a payload), sealed end to end; resolves with the message id. */
  async sendAsUser(message: string | EnvelopePayload, options: AsUserOptions = {}): Promise<string> {
    const payload = typeof message === 'string' ? { type: 'text', text: message } : message;
    const sent = await this.#actor(options).send(this.#where(options), payload);
    return sent.messageId;
  }

  /**
   * A user sends a file (bytes, or a string as UTF-8): encrypted, uploaded,
   * announced by a sealed `file` message. Resolves with the message id.
   */
  async sendFileAsUser(
    content: Uint8Array | string,
    file: { readonly name: string; readonly contentType?: string },
    options: AsUserOptions = {},
  ): Promise<string> {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    const { sent } = await this.#actor(options).files.upload(this.#where(options), bytes, {
      name: file.name,
      contentType: file.contentType ?? 'application/octet-stream',
    });
    return sent.messageId;
  }

  /** A user reacts to a message (sealed end to end); `remove: true` takes the reaction back. */
  async reactAsUser(
    messageId: string,
    emoji: string,
    options: AsUserOptions & { readonly remove?: boolean } = {},
  ): Promise<void> {
    await this.#actor(options).react(this.#where(options), messageId, emoji, {
      remove: options.remove === true,
    });
  }

  /**
   * Answers an artifact the user received: `{ approve: data }` (form values,
   * a tool's result; `{}` for a confirmation) or `{ deny: reason }`.
   */
  async answerArtifact(
    reply: ArtifactReply,
    answer: { readonly approve: Readonly<Record<string, unknown>> } | { readonly deny: DenyReason },
  ): Promise<void> {
    if ('approve' in answer) await reply.artifact.approve(answer.approve);
    else await reply.artifact.deny(answer.deny);
  }

  /**
   * Resolves with the next event an agent handled (after the previous one
   * this method returned for that agent) that matches `predicate`; by
   * default the next `message.new`. Events that do not match are passed over.
   *
   * @throws {@link TestWorldError} when none arrives within `timeoutMs`, or the agent stopped (`fatal`).
   */
  waitForDelivery(
    predicate: (event: AnyAgentEvent) => boolean = (e) => e.type === 'message.new',
    options: DeliveryWaitOptions = {},
  ): Promise<AnyAgentEvent> {
    const agent = this.#agentRecord(options.agent);
    return pollUntil(
      () => {
        this.#checkFatal(agent);
        while (agent.eventCursor < agent.events.length) {
          const event = agent.events[agent.eventCursor++];
          if (event !== undefined && predicate(event)) return event;
        }
        return undefined;
      },
      `an event handled by agent "${agent.name}" (${agent.agentId})`,
      options.timeoutMs ?? this.#parts.timeoutMs,
    );
  }

  /**
   * Resolves with the next reply an agent (default `world.agent`) sent a
   * user (default its owner), as the user's client received and opened it:
   * text, a stream (once ended, text assembled), an artifact, a file, or
   * another message. With `kind`, the result is typed as that kind.
   *
   * @throws {@link TestWorldError} when none arrives within `timeoutMs`
   *   (naming what was awaited), when the next reply is of another kind, or
   *   when the agent stopped (`fatal`).
   * @example
   * ```ts
   * const reply = await world.waitForReply({ kind: 'stream' });
   * expect(reply.text).toBe('Hello, world');
   * ```
   */
  async waitForReply<K extends ReplyKind = ReplyKind>(
    options: ReplyWaitOptions<K> = {},
  ): Promise<ReplyOfKind<K>> {
    const agent = this.#agentRecord(options.from);
    const user = this.#userRecord(options.to ?? agent.owner);
    const kind = options.kind === undefined ? 'reply' : `${options.kind} reply`;
    const where = options.conversationId === undefined ? '' : ` in ${options.conversationId}`;
    const what = `a ${kind} from agent "${agent.name}" (${agent.agentId}) to user "${user.name}"${where}`;
    const reply = await pollUntil(
      () => {
        this.#checkFatal(agent);
        while (user.replyCursor < user.replies.length) {
          const next = user.replies[user.replyCursor++]!;
          if (next.senderId !== agent.agentId) continue;
          if (options.conversationId !== undefined && next.conversationId !== options.conversationId)
            continue;
          return next;
        }
        return undefined;
      },
      what,
      options.timeoutMs ?? this.#parts.timeoutMs,
    );
    if (options.kind !== undefined && reply.kind !== options.kind) {
      throw new TestWorldError(`Waiting for ${what}, the next one was ${describeReply(reply)}.`);
    }
    return reply as ReplyOfKind<K>;
  }

  /**
   * An agent's delivery logs (`GET /agents/:id/delivery-logs`), newest first,
   * once in-flight webhook deliveries are done (both transports are logged).
   */
  async deliveryLogs(limit = 100, agent?: WorldAgent): Promise<DeliveryLogEntry[]> {
    await this.server.control.deliverySettled();
    return this.#agentRecord(agent).api.deliveryLogs(limit);
  }

  /**
   * Checks that the delivery logs hold `count` entries matching the
   * expectation and returns them (newest first).
   *
   * @throws {@link TestWorldError} listing what the logs hold when the count differs.
   * @example
   * ```ts
   * await world.expectDeliveries({ eventType: 'message.new', finalStatus: 'delivered', count: 1 });
   * ```
   */
  async expectDeliveries(expected: DeliveryExpectation, agent?: WorldAgent): Promise<DeliveryLogEntry[]> {
    const logs = await this.deliveryLogs(100, agent);
    const matching = logs.filter(
      (e) =>
        (expected.eventType === undefined || e.event_type === expected.eventType) &&
        (expected.finalStatus === undefined || e.final_status === expected.finalStatus),
    );
    if (matching.length !== expected.count) {
      const held = logs.map((e) => `${e.event_type}:${e.final_status}`).join(', ') || 'nothing';
      throw new TestWorldError(
        `Expected ${expected.count} delivery log entries matching ${JSON.stringify(expected)}, ` +
          `found ${matching.length}. The logs hold: ${held}.`,
      );
    }
    return matching;
  }

  /** Closes the agents, the users' connections, the webhook receivers, the relay and the server. */
  async close(): Promise<void> {
    for (const a of this.#agents) await a.agent.close({ timeoutMs: 2_000 });
    for (const u of this.#users) await u.client.signOut();
    for (const d of this.#devices) await d.signOut().catch(() => undefined);
    for (const a of this.#agents) await a.hook?.close();
    await this.relay?.close();
    await this.server.close();
  }

  #setting(): ClientSetting {
    return { baseUrl: this.relay?.url ?? this.server.url, clock: this.clock };
  }

  #first<T>(list: readonly T[], what: string): T {
    const first = list[0];
    if (first === undefined) throw new TestWorldError(`The world has no ${what}.`);
    return first;
  }

  #userNamed(name: string | undefined): MutableUser | undefined {
    return name === undefined ? undefined : this.#users.find((u) => u.name === name);
  }

  #userRecord(user: WorldUser): MutableUser {
    const found = this.#users.find((u) => u.userId === user.userId);
    if (found === undefined) throw new TestWorldError(`User "${user.name}" is not of this world.`);
    return found;
  }

  #agentRecord(agent: WorldAgent | undefined): MutableAgent {
    if (agent === undefined) return this.#first(this.#agents, 'agent');
    const found = this.#agents.find((a) => a.agentId === agent.agentId);
    if (found === undefined) throw new TestWorldError(`Agent "${agent.name}" is not of this world.`);
    return found;
  }

  #actor(options: AsUserOptions): UserClient {
    return options.user === undefined ? this.user : this.#userRecord(options.user).client;
  }

  #where(options: AsUserOptions): string {
    return options.conversationId ?? this.conversationId;
  }

  #checkFatal(agent: MutableAgent): void {
    const fatal = agent.fatalErrors[0];
    if (fatal !== undefined) {
      throw new TestWorldError(`Agent "${agent.name}" stopped for good (fatal): ${fatal.message}`);
    }
  }
}

/** The reasons a user may give when denying an artifact. */
export type DenyReason = Parameters<ArtifactReply['artifact']['deny']>[0];

function numbered(base: string, index: number): string {
  return index === 0 ? base : `${base} ${index + 1}`;
}

function userOptionsOf(options: TestWorldOptions): TestWorldUserOptions[] {
  const users = options.users ?? 1;
  const list =
    typeof users === 'number'
      ? Array.from({ length: users }, (): TestWorldUserOptions => ({}))
      : users.map((u) => (typeof u === 'string' ? { name: u } : u));
  const [first, ...rest] = list;
  if (first === undefined) return [];
  return [{ ...(options.userName === undefined ? {} : { name: options.userName }), ...first }, ...rest];
}

function agentOptionsOf(options: TestWorldOptions): TestWorldAgentOptions[] {
  const agents = options.agents ?? 1;
  const list =
    typeof agents === 'number'
      ? Array.from({ length: agents }, (): TestWorldAgentOptions => ({}))
      : [...agents];
  const [first, ...rest] = list;
  if (first === undefined) return [];
  return [{ ...options.agent, ...first }, ...rest];
}

/**
 * Starts a reference server (virtual time, cheap hashing), signs the users
 * up, creates the agents (each for its owner, keys registered, in a
 * conversation with it, connected), creates the groups, and connects the
 * users. By default: one user and one agent.
 *
 * @throws whatever the reference server, `UserClient` or `Agent` throw while setting up;
 *   {@link TestWorldError} for a group naming someone the world does not have.
 * @example
 * ```ts
 * const world = await createTestWorld({ agent: { mode: 'websocket' } });
 * world.agent.on('message.new', (m) => m.reply(`echo: ${m.text}`));
 * await world.sendAsUser('hi');
 * expect((await world.waitForReply({ kind: 'text' })).text).toBe('echo: hi');
 * await world.close();
 * ```
 */
export async function createTestWorld(options: TestWorldOptions = {}): Promise<TestWorld> {
  const d = DEFAULT_TEST_WORLD_OPTIONS;
  const server = await startReferenceServer({ ...d.server, ...options.server });
  let world: TestWorld | undefined;
  try {
    const relay = options.relay === true ? await startRelay({ target: server.url }) : undefined;
    world = new TestWorld({
      server,
      relay,
      clock: serverClock(server),
      timeoutMs: options.timeoutMs ?? d.timeoutMs,
    });
    // Users connect last: group joins are admitted by the world, not by the owner's socket.
    const users = userOptionsOf(options);
    for (const u of users) await world.addUser({ ...u, connect: false });
    for (const a of agentOptionsOf(options)) await world.addAgent(a);
    for (const g of options.groups ?? []) await world.addGroup(g);
    for (const [i, u] of users.entries()) if (u.connect ?? true) await world.users[i]!.client.connect();
    return world;
  } catch (err) {
    if (world !== undefined) await world.close().catch(() => undefined);
    else await server.close();
    throw err;
  }
}
