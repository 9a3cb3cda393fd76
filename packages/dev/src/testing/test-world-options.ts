/**
 * Options and defaults of {@link createTestWorld}: the reference server, the
 * simulated user and the agent under test.
 *
 * @module
 */
import type { AgentMode, AgentOptions } from 'agent-messaging-sdk';
import type { ReferenceServerOptions } from '../server/index.js';

/** How the world signs a user up (`createTestWorld({ users })`, `world.addUser()`). */
export interface TestWorldUserOptions {
  /**
   * The display name (2 to 24 characters), also how groups name the user.
   * @defaultValue `'Test user'`, then `'Test user 2'`, `'Test user 3'` …
   */
  readonly name?: string;
  /**
   * Open the user's WebSocket (`user.connect()`), so streams, artifacts and
   * messages arrive as they are sent.
   * @defaultValue `true`
   */
  readonly connect?: boolean;
  /** The user client's `readReceipts` option (read receipts, opt-in). @defaultValue `false` */
  readonly readReceipts?: boolean;
}

/** A group of the world: created by its first user member, who invites and admits the others. */
export interface TestWorldGroupOptions {
  /** The group's name. */
  readonly name: string;
  /**
   * Display names of its members, users and agents of the world; the first
   * user named is the owner. Agents join with their owner's consent, so each
   * agent named must belong to the group's owner.
   */
  readonly members: readonly string[];
}

/** How the world builds an agent under test. */
export interface TestWorldAgentOptions {
  /**
   * How the agent receives events. In `'webhook'` mode the world starts an
   * HTTP receiver on 127.0.0.1 (a free port), registers it as the agent's
   * webhook and wires the agent's handler to it.
   * @defaultValue `'websocket'`
   */
  readonly mode?: AgentMode;
  /**
   * Connect the agent (`agent.connect()`) before `createTestWorld` resolves.
   * The world registers the agent's keys itself either way (the user can add
   * the agent only then); with `false`, register handlers and call
   * `world.agent.connect()` yourself. In WebSocket mode events wait at the
   * service until then; in webhook mode the handler is wired at once.
   * @defaultValue `true`
   */
  readonly connect?: boolean;
  /**
   * The agent's display name, also how groups name the agent.
   * @defaultValue `'Test agent'`, then `'Test agent 2'` …
   */
  readonly name?: string;
  /**
   * Display name of the user who creates the agent and gets a conversation
   * with it.
   * @defaultValue the world's first user
   */
  readonly owner?: string;
  /**
   * Extra `Agent` options (logger, concurrency, clock, dedupStore …). The
   * world sets `baseUrl`, `agentId`, `token`, `mode` and an in-memory key
   * store, and defaults to the world's clock, fast reconnects and retries,
   * and `shutdownSignals: false` (no signal handlers in a test process).
   */
  readonly options?: Partial<AgentOptions>;
}

/** Caller options of {@link createTestWorld}. */
export interface TestWorldOptions {
  /**
   * Reference-server options, over the world's test defaults.
   * @defaultValue `{ virtualTime: true, passwordHashing: { logN: 10 }, agentTokenBcryptCost: 4 }`
   */
  readonly server?: ReferenceServerOptions;
  /** The agent under test (the first of `agents`). */
  readonly agent?: TestWorldAgentOptions;
  /**
   * The users: how many, or each one's options (a string is a name). The
   * first is `world.user`.
   * @defaultValue `1`
   */
  readonly users?: number | readonly (string | TestWorldUserOptions)[];
  /**
   * The agents: how many, or each one's options; `agent` applies to the
   * first. The first is `world.agent`. Each gets a conversation with its owner.
   * @defaultValue `1`
   */
  readonly agents?: number | readonly TestWorldAgentOptions[];
  /** Groups to create once every user and agent exists. @defaultValue none */
  readonly groups?: readonly TestWorldGroupOptions[];
  /**
   * The first user's display name (2 to 24 characters).
   * @defaultValue `'Test user'`
   */
  readonly userName?: string;
  /**
   * Route every client of the world through `world.relay`, a proxy that
   * records every byte and stages faults.
   * @defaultValue `false`
   */
  readonly relay?: boolean;
  /**
   * Default time limit of the `waitFor…` helpers, in ms of real time:
   * shorter than vitest's and Jest's 5 s test timeout, so a wait that runs
   * out fails with a `TestWorldError` saying what it awaited, not with the
   * runner's timeout.
   * @defaultValue `3000`
   */
  readonly timeoutMs?: number;
}

/** The world's defaults, in one place. */
export const DEFAULT_TEST_WORLD_OPTIONS = {
  server: { virtualTime: true, passwordHashing: { logN: 10 }, agentTokenBcryptCost: 4 },
  agent: { mode: 'websocket', connect: true, name: 'Test agent' },
  userName: 'Test user',
  timeoutMs: 3_000,
  /** Cheap Argon2id for the simulated user's key backup (tests only). */
  keyBackup: { params: { m: 64, t: 1, p: 1 }, minParams: { m: 8, t: 1, p: 1 } },
  /** Fast reconnects of the agent's WebSocket (real time). */
  reconnect: { baseMs: 20, capMs: 150, stableAfterMs: 60_000 },
} as const satisfies {
  server: ReferenceServerOptions;
  agent: TestWorldAgentOptions;
  userName: string;
  timeoutMs: number;
  keyBackup: object;
  reconnect: object;
};
