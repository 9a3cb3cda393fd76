/**
 * The chaos harness: a reference server, one agent and N users each in
 * their own conversation with it (the service's conversations are 1:1
 * user/agent, so N conversations take N users), the agent's transport
 * optionally behind a {@link FaultProxy}, a sender that numbers every
 * message (`c2#0137`) and a {@link ChaosRecorder} fed by the agent's
 * handler. Faults run at message-count milestones: a sender does not send
 * message number `at` (counted over all conversations) until the fault for
 * `at` has started, and a fault starts once `at` messages were accepted and
 * the previous fault finished. Nothing is scheduled by the clock.
 *
 * @example
 * ```ts
 * const world = await startChaos({ transport: 'websocket', proxy: true });
 * const report = await world.run(everyHundred(5, resetFault));
 * expectClean(report, 600);
 * ```
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { Agent, type AgentMode, type AgentOptions } from '../../packages/sdk/src/agent/index.js';
import { toBase64 } from '../../packages/sdk/src/core/encoding.js';
import { MemoryKeyStore } from '../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer, ReferenceServerOptions } from '../../packages/dev/src/testing/index.js';
import {
  startWebhookHost,
  worldClock,
  type WebhookHost,
} from '../../packages/dev/src/testing/test-world-parts.js';
import { createMemoryDedupStore } from '../../packages/sdk/src/webhook/index.js';
import { createAccount, FAST_RECONNECT, startWorld, UserSide, type AgentAccount } from './agent-world.js';
import { ChaosRecorder, messageText, type ChaosReport } from './chaos-recorder.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { createTestUser } from './server-agents.js';

/** Options of {@link startChaos}. */
export interface ChaosOptions {
  /** How the first agent receives events. */
  readonly transport: AgentMode;
  /**
   * Put a fault proxy in front of the agent's transport: between the agent
   * and the server's WebSocket, or between the server and the agent's
   * webhook receiver.
   * @defaultValue `false`
   */
  readonly proxy?: boolean;
  /** Conversations (one user each). @defaultValue `4` */
  readonly conversations?: number;
  /** Messages over all conversations (a multiple of `conversations`). @defaultValue `600` */
  readonly messages?: number;
  /** The server on a virtual clock (webhook retry schedule). @defaultValue `false` (real time) */
  readonly virtualTime?: boolean;
  /** Extra options of every Agent the world creates. */
  readonly agent?: Partial<AgentOptions>;
  /**
   * Pause of each conversation's sender after each message, ms of real
   * time: a steady pace, so faults that last a while (partitions) leave
   * healthy traffic between them. 0 sends as fast as the server answers.
   * @defaultValue `0`
   */
  readonly paceMs?: number;
  /**
   * How long the agent's handler works on each message, ms of real time
   * (events queue up behind it within a conversation). 0 records at once.
   * @defaultValue `0`
   */
  readonly handlerMs?: number;
  /** Real-time limit of waits (settling, reconnects), ms. @defaultValue `15000` */
  readonly timeoutMs?: number;
  /** Extra options of the reference server (e.g. a shorter `wsAck.timeoutMs`). */
  readonly server?: ReferenceServerOptions;
  /**
   * Starts the world's agent instead of an in-process one (e.g. an agent in
   * a child process, which feeds {@link ChaosWorld.recorder} itself). It must
   * resolve once the agent's keys are registered (it connected). Settling
   * then judges quiet by the server's `pending_count` and the recorder only.
   */
  readonly launch?: (world: ChaosWorld) => Promise<void>;
}

/** A fault injected once `at` messages were sent. */
export interface Fault {
  /** Messages accepted (over all conversations) before the fault starts. */
  readonly at: number;
  /** For the log and failure messages. */
  readonly name: string;
  /** Injects the fault; resolves when it is over (the next fault waits for that). */
  run(world: ChaosWorld): Promise<void>;
}

/** Fast, test-sized WebSocket liveness: pings every 250 ms, dead after 2 s of silence. */
export const CHAOS_HEARTBEAT = { intervalMs: 250, timeoutMs: 2_000 } as const;

/** The quiet time after which a run that is not complete is judged as it stands, ms. */
const QUIET_MS = 1_500;

/** The longest wait for the last messages after sending ended, ms (then the run is judged as it stands). */
const SETTLE_MS = 8_000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A running chaos world. Create it with {@link startChaos}; close it with {@link ChaosWorld.close}. */
export class ChaosWorld {
  /** Every agent the world created, oldest first (mode switches create more). */
  readonly agents: Agent[] = [];
  /** `connected` notifications over all the world's agents. */
  connects = 0;
  /** The faults started so far, each with the messages sent when it started (exactly its `at`). */
  readonly faultLog: { readonly name: string; readonly sent: number }[] = [];
  readonly recorder: ChaosRecorder;
  readonly #keyStore = new MemoryKeyStore();
  readonly #dedupStore;
  readonly #webhookSecret = toBase64(new Uint8Array(randomBytes(32)));
  #sent = 0;
  #sentWaiters: { n: number; resolve: () => void }[] = [];

  /** @internal Use {@link startChaos}. */
  constructor(
    readonly server: ReferenceServer,
    readonly account: AgentAccount,
    /** The proxy in front of the agent's transport, when asked for. */
    readonly proxy: FaultProxy | undefined,
    /** The agent's webhook receiver (started in every world, used in webhook mode). */
    readonly hook: WebhookHost,
    readonly sides: UserSide[],
    readonly options: Required<Omit<ChaosOptions, 'agent' | 'launch' | 'server'>> &
      Pick<ChaosOptions, 'agent' | 'launch' | 'server'>,
  ) {
    this.recorder = new ChaosRecorder(sides.length);
    this.#dedupStore = createMemoryDedupStore({ clock: worldClock(server) });
  }

  /** The agent most recently created. */
  get agent(): Agent {
    return this.agents[this.agents.length - 1]!;
  }

  /** The agent's id. */
  get agentId(): string {
    return this.account.agentId;
  }

  /** Messages accepted by the server so far. */
  get sent(): number {
    return this.#sent;
  }

  /** The webhook address the server is given: the proxy's when the webhook is proxied. */
  get webhookUrl(): string {
    if (this.options.transport !== 'webhook' || this.proxy === undefined) return this.hook.url;
    return this.hook.url.replace(/:\d+\//, `:${this.proxy.port}/`);
  }

  /**
   * Creates and connects an agent in `mode` sharing the world's key store,
   * de-duplication store and recorder. In WebSocket mode its socket goes
   * through the proxy (when the world has one for WebSocket); in webhook mode
   * it becomes the webhook receiver's handler. `overrides` go last, e.g. a
   * fresh `dedupStore` for an agent process that crashed and started again.
   */
  async startAgent(mode: AgentMode, overrides: Partial<AgentOptions> = {}): Promise<Agent> {
    const wsViaProxy = this.options.transport === 'websocket' && this.proxy !== undefined;
    const agent = new Agent({
      baseUrl: this.server.url,
      agentId: this.account.agentId,
      token: this.account.token,
      keyStore: this.#keyStore,
      dedupStore: this.#dedupStore,
      clock: worldClock(this.server),
      reconnect: FAST_RECONNECT,
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
      heartbeat: CHAOS_HEARTBEAT,
      ...(wsViaProxy ? { webSocketUrl: `ws://127.0.0.1:${this.proxy!.port}/ws` } : {}),
      ...this.options.agent,
      ...overrides,
      mode,
    });
    const handlerMs = this.options.handlerMs;
    agent.on('message.new', async (m) => {
      this.recorder.handled(m.text);
      if (handlerMs > 0) await pause(handlerMs);
    });
    agent.on('connected', () => void (this.connects += 1));
    // A switch to webhook mode ends a WebSocket agent for good (4013): expected here.
    agent.on('fatal', () => undefined);
    this.agents.push(agent);
    if (mode === 'webhook') this.hook.use(agent.webhook({ secret: this.#webhookSecret }).nodeHandler());
    await agent.connect();
    return agent;
  }

  /** Registers the world's webhook (fixed secret) for the agent: the server switches it to webhook mode. */
  async setWebhook(): Promise<void> {
    await this.server.control.setWebhook(this.agentId, { url: this.webhookUrl, secret: this.#webhookSecret });
  }

  /** Removes the agent's webhook: the server switches it back to WebSocket mode. */
  removeWebhook(): Promise<void> {
    return this.server.control.removeWebhook(this.agentId);
  }

  /** Moves virtual time forward and waits until due webhook attempts are done. */
  async advance(ms: number): Promise<void> {
    this.server.advanceTime(ms);
    await this.server.control.deliveryIdle();
  }

  /** Resolves once `check()` holds (polled on real time). @throws after the world's `timeoutMs`, naming `what`. */
  async until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + this.options.timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`chaos: timed out waiting for ${what}`);
      await pause(5);
    }
  }

  /** Resolves once the world's agents connected more than `before` times in all. */
  reconnected(before: number): Promise<void> {
    return this.until(() => this.connects > before, 'the agent to reconnect');
  }

  /**
   * Sends every message, numbered per conversation, from one sequential
   * sender per conversation, while running `faults` at their milestones;
   * then waits until every message was handled, or until nothing more can
   * come (the server holds nothing for the agent, the agents are idle, and
   * no message was handled for a quiet time) and returns the verdict.
   */
  async run(faults: readonly Fault[]): Promise<ChaosReport> {
    const ordered = [...faults].sort((a, b) => a.at - b.at);
    const late = ordered.find((f) => !(Number.isInteger(f.at) && f.at >= 0 && f.at < this.options.messages));
    if (late !== undefined) throw new Error(`chaos: fault "${late.name}" is not within the messages sent`);
    const started = ordered.map(() => {
      let resolve = (): void => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
    const gate = (index: number): Promise<unknown> =>
      Promise.all(ordered.flatMap((f, k) => (f.at <= index ? [started[k]!.promise] : [])));
    const injector = async (): Promise<void> => {
      for (const [k, fault] of ordered.entries()) {
        await this.#sentReached(fault.at);
        this.faultLog.push({ name: fault.name, sent: this.#sent });
        started[k]!.resolve();
        await fault.run(this);
      }
    };
    const perConversation = this.options.messages / this.sides.length;
    let next = 0;
    const sender = async (conv: number): Promise<void> => {
      for (let seq = 0; seq < perConversation; seq++) {
        await gate(next++);
        await this.#send(conv, seq);
        if (this.options.paceMs > 0) await pause(this.options.paceMs);
      }
    };
    await Promise.all([injector(), ...this.sides.map((_, conv) => sender(conv))]);
    expect(
      this.faultLog.map((f) => f.sent),
      'messages sent when each fault started',
    ).toEqual(ordered.map((f) => f.at));
    await this.#settle();
    return this.recorder.report();
  }

  /** Closes the agents, the proxy, the webhook receiver and the server. */
  async close(): Promise<void> {
    for (const agent of this.agents) await agent.close({ timeoutMs: 2_000 });
    await this.proxy?.close();
    await this.hook.close();
    await this.server.close();
  }

  /** Seals and posts one message; a 401 (virtual time outran the access token) refreshes the token. */
  async #send(conv: number, seq: number): Promise<void> {
    const side = this.sides[conv]!;
    const wire = await side.seal({ type: 'text', text: messageText(conv, seq) });
    for (let attempt = 1; ; attempt++) {
      const res = await side.postWire(wire);
      if (res.status === 401 && attempt < 5) {
        await side.refreshAccess();
        continue;
      }
      expect(res.status, res.text).toBeLessThan(300);
      break;
    }
    this.recorder.sent(conv, seq);
    this.#sent++;
    this.#sentWaiters = this.#sentWaiters.filter((w) => (w.n <= this.#sent ? (w.resolve(), false) : true));
  }

  #sentReached(n: number): Promise<void> {
    if (this.#sent >= n) return Promise.resolve();
    return new Promise((resolve) => this.#sentWaiters.push({ n, resolve }));
  }

  async #quiet(): Promise<boolean> {
    const view = await this.server.control.agent(this.agentId);
    const busy = this.agents.some((a) => {
      const s = a.stats();
      return s.running > 0 || s.queued > 0 || s.inFlight > 0;
    });
    return view?.pending_count === 0 && !busy;
  }

  async #settle(): Promise<void> {
    const total = this.options.messages;
    const deadline = Date.now() + Math.min(SETTLE_MS, this.options.timeoutMs);
    let quietSince: number | undefined;
    let lastCalls = -1;
    while (this.recorder.distinctHandled < total && Date.now() < deadline) {
      await this.server.control.deliveryIdle();
      const calls = this.recorder.handledCalls;
      if (calls !== lastCalls || !(await this.#quiet())) quietSince = undefined;
      else quietSince ??= Date.now();
      lastCalls = calls;
      if (quietSince !== undefined && Date.now() - quietSince >= QUIET_MS) return;
      await pause(10);
    }
  }
}

/**
 * Starts a chaos world: server (real or virtual time), `conversations`
 * users each in a conversation with one agent, the webhook receiver, the
 * proxy when asked, and the first agent connected in `transport` mode (in
 * webhook mode the webhook is registered first), or started by `launch`.
 */
export async function startChaos(options: ChaosOptions): Promise<ChaosWorld> {
  const resolved = {
    proxy: false,
    conversations: 4,
    messages: 600,
    virtualTime: false,
    paceMs: 0,
    handlerMs: 0,
    timeoutMs: 15_000,
    ...options,
  };
  if (resolved.messages % resolved.conversations !== 0)
    throw new Error('chaos: messages must be a multiple of conversations');
  const server = await startWorld({ ...resolved.server, virtualTime: resolved.virtualTime });
  const hook = await startWebhookHost();
  const target = resolved.transport === 'webhook' ? new URL(hook.url) : new URL(server.url);
  const proxy = resolved.proxy
    ? await startFaultProxy({ target: { host: target.hostname, port: Number(target.port) } })
    : undefined;
  const account = await createAccount(server);
  const users = [account.owner];
  for (let i = 1; i < resolved.conversations; i++) users.push(await createTestUser(server));
  const sides = users.map((u) => new UserSide(server, u, account.agentId));
  const world = new ChaosWorld(server, account, proxy, hook, sides, resolved);
  if (resolved.transport === 'webhook') await world.setWebhook();
  if (resolved.launch !== undefined) await resolved.launch(world);
  else await world.startAgent(resolved.transport);
  for (const side of sides) {
    await side.addAgent();
    await side.agentKeys();
  }
  return world;
}

/** `count` faults made by `make`, at every hundredth message (100, 200, …). */
export function everyHundred(count: number, make: (at: number) => Fault): Fault[] {
  return Array.from({ length: count }, (_, i) => make((i + 1) * 100));
}

/**
 * Asserts the verdict exactly: every one of `total` messages handled once,
 * in order within its conversation. The failure message lists the first
 * ids of each problem.
 */
export function expectClean(report: ChaosReport, total: number): void {
  expect(report.counts, report.summary).toEqual({
    sent: total,
    handled: total,
    lost: 0,
    duplicated: 0,
    outOfOrder: 0,
  });
}
