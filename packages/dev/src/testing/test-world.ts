/**
 * `createTestWorld`: a reference server, a signed-up user in a conversation
 * with an agent, and the agent under test, in one call, with helpers to
 * drive and observe them from a vitest or node:test suite.
 *
 * @module
 */
import { Agent, type AnyAgentEvent } from 'agent-messaging-sdk';
import { createAgentApi, ensureAgentKeys, type AgentApi } from 'agent-messaging-sdk/protocol';
import type { ReceivedMessage, UserClient } from 'agent-messaging-sdk';
import type { DeliveryFinalStatus, DeliveryLogEntry } from 'agent-messaging-sdk/protocol';
import { MemoryKeyStore } from 'agent-messaging-sdk/crypto';
import { startReferenceServer, type ReferenceServer } from '../server/index.js';
import type { EnvelopePayload } from 'agent-messaging-sdk/crypto';
import { DEFAULT_TEST_WORLD_OPTIONS, type TestWorldOptions } from './test-world-options.js';
import {
  pollUntil,
  signUpUser,
  startWebhookHost,
  TestWorldError,
  worldClock,
  type WebhookHost,
} from './test-world-parts.js';

/** Options of the `waitFor…` helpers. */
export interface WaitOptions {
  /**
   * Real-time limit of the wait, in ms.
   * @defaultValue the world's `timeoutMs` (`5000`)
   */
  readonly timeoutMs?: number;
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

/** The handles the world keeps. */
interface WorldParts {
  readonly server: ReferenceServer;
  readonly user: UserClient;
  readonly agent: Agent;
  readonly agentId: string;
  readonly conversationId: string;
  readonly api: AgentApi;
  readonly hook: WebhookHost | undefined;
  readonly timeoutMs: number;
  readonly events: AnyAgentEvent[];
}

/**
 * A running test world. Create it with {@link createTestWorld}; close it in
 * `afterEach`/`after` with {@link TestWorld.close}.
 */
export class TestWorld {
  /** The reference server (control API under `server.control`). */
  readonly server: ReferenceServer;
  /** The simulated user: signed up, keys in memory, in {@link TestWorld.conversationId} with the agent. */
  readonly user: UserClient;
  /** The agent under test. */
  readonly agent: Agent;
  /** The agent's id. */
  readonly agentId: string;
  /** The conversation between the user and the agent. */
  readonly conversationId: string;
  /** Every event the agent handled, in order (recorded after its own handlers ran). */
  readonly events: readonly AnyAgentEvent[];
  #parts: WorldParts;
  #eventCursor = 0;
  #replyCursor = 0;
  #replies: ReceivedMessage[] = [];

  /** @internal Use {@link createTestWorld}. */
  constructor(parts: WorldParts) {
    this.#parts = parts;
    this.server = parts.server;
    this.user = parts.user;
    this.agent = parts.agent;
    this.agentId = parts.agentId;
    this.conversationId = parts.conversationId;
    this.events = parts.events;
  }

  /**
   * Moves the service's virtual time forward (token expiry, grace periods,
   * the webhook retry schedule) and waits until webhook deliveries that
   * became due are done. The agent reads the same time (webhook timestamps,
   * de-duplication, key grace agree); its timers (reconnects, retries) run
   * on real time.
   *
   * @throws `ConfigurationError` when the server is not in virtual time.
   */
  async advanceTime(ms: number): Promise<void> {
    this.server.advanceTime(ms);
    await this.server.control.deliveryIdle();
  }

  /** The user sends `text` (or a payload) to the agent, sealed end to end; resolves with the message id. */
  async sendAsUser(message: string | EnvelopePayload): Promise<string> {
    const payload = typeof message === 'string' ? { type: 'text', text: message } : message;
    const sent = await this.user.send(this.conversationId, payload);
    return sent.messageId;
  }

  /**
   * Resolves with the next event the agent handled (after the previous one
   * this method returned) that matches `predicate`; by default the next
   * `message.new`. Events that do not match are passed over.
   *
   * @throws {@link TestWorldError} when none arrives within `timeoutMs`.
   */
  waitForDelivery(
    predicate: (event: AnyAgentEvent) => boolean = (e) => e.type === 'message.new',
    options: WaitOptions = {},
  ): Promise<AnyAgentEvent> {
    return pollUntil(
      () => {
        while (this.#eventCursor < this.events.length) {
          const event = this.events[this.#eventCursor++];
          if (event !== undefined && predicate(event)) return event;
        }
        return undefined;
      },
      'an agent event',
      options.timeoutMs ?? this.#parts.timeoutMs,
    );
  }

  /**
   * Resolves with the next message the agent sent to the conversation, read
   * and opened by the user (signature checked).
   *
   * @throws {@link TestWorldError} when none arrives within `timeoutMs`.
   */
  waitForReply(options: WaitOptions = {}): Promise<ReceivedMessage> {
    return pollUntil(
      async () => {
        if (this.#replies.length === 0) await this.#readReplies();
        return this.#replies.shift();
      },
      'a reply from the agent',
      options.timeoutMs ?? this.#parts.timeoutMs,
      20,
    );
  }

  /**
   * The agent's delivery logs (`GET /agents/:id/delivery-logs`), newest first,
   * once in-flight webhook deliveries are done (both transports are logged).
   */
  async deliveryLogs(limit = 100): Promise<DeliveryLogEntry[]> {
    await this.server.control.deliverySettled();
    return this.#parts.api.deliveryLogs(limit);
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
  async expectDeliveries(expected: DeliveryExpectation): Promise<DeliveryLogEntry[]> {
    const logs = await this.deliveryLogs();
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

  /** Closes the agent, the user's connections, the webhook receiver and the server. */
  async close(): Promise<void> {
    await this.agent.close({ timeoutMs: 2_000 });
    await this.user.signOut();
    await this.#parts.hook?.close();
    await this.server.close();
  }

  async #readReplies(): Promise<void> {
    const page = await this.user.messages(this.conversationId, { after: this.#replyCursor });
    this.#replyCursor = page.cursor;
    this.#replies.push(...page.messages.filter((m) => m.senderId === this.agentId));
  }
}

/**
 * Starts a reference server (virtual time, cheap hashing), signs a user up,
 * creates an agent for them, registers its keys, opens a conversation
 * between them and (by default) connects the agent.
 *
 * @throws whatever the reference server, `UserClient` or `Agent` throw while setting up.
 * @example
 * ```ts
 * const world = await createTestWorld({ agent: { mode: 'websocket' } });
 * world.agent.on('message.new', (m) => m.reply(`echo: ${m.text}`));
 * await world.sendAsUser('hi');
 * expect((await world.waitForReply()).payload).toEqual({ type: 'text', text: 'echo: hi' });
 * await world.close();
 * ```
 */
export async function createTestWorld(options: TestWorldOptions = {}): Promise<TestWorld> {
  const d = DEFAULT_TEST_WORLD_OPTIONS;
  const server = await startReferenceServer({ ...d.server, ...options.server });
  try {
    return await populate(server, options);
  } catch (err) {
    await server.close();
    throw err;
  }
}

async function populate(server: ReferenceServer, options: TestWorldOptions): Promise<TestWorld> {
  const d = DEFAULT_TEST_WORLD_OPTIONS;
  const a = { ...d.agent, ...options.agent };
  const user = await signUpUser(server, options.userName ?? d.userName);
  const created = await user.createAgent({ name: a.name });
  const { agentId, token } = created;
  const api = createAgentApi({ baseUrl: server.url, agentId, token });
  const keyStore = options.agent?.options?.keyStore ?? new MemoryKeyStore();
  const clock = a.options?.clock ?? worldClock(server);
  await ensureAgentKeys({ api, store: keyStore, clock }); // the user can add the agent only once its keys exist
  const agent = new Agent({
    clock,
    reconnect: d.reconnect,
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
    ...a.options,
    baseUrl: server.url,
    agentId,
    token,
    mode: a.mode,
    keyStore,
  });
  const hook = a.mode === 'webhook' ? await startWebhookHost() : undefined;
  if (hook !== undefined) {
    const { secret } = await server.control.setWebhook(agentId, { url: hook.url });
    agent.webhook({ ...a.options?.webhook, secret });
    hook.use(agent.webhookHandler());
  }
  const events: AnyAgentEvent[] = [];
  agent.on('event', (event) => void events.push(event));
  if (a.connect) await agent.connect();
  const { conversationId } = await user.addAgent(agentId);
  const timeoutMs = options.timeoutMs ?? d.timeoutMs;
  return new TestWorld({ server, user, agent, agentId, conversationId, api, hook, timeoutMs, events });
}
