/**
 * Options and defaults of {@link createTestWorld}: the reference server, the
 * simulated user and the agent under test.
 *
 * @module
 */
import type { AgentMode, AgentOptions } from 'agent-messaging-sdk';
import type { ReferenceServerOptions } from '../server/index.js';

/** How the world builds the agent under test. */
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
   * The agent's display name.
   * @defaultValue `'Test agent'`
   */
  readonly name?: string;
  /**
   * Extra `Agent` options (logger, concurrency, clock, dedupStore …). The
   * world sets `baseUrl`, `agentId`, `token`, `mode` and an in-memory key store.
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
  /** The agent under test. */
  readonly agent?: TestWorldAgentOptions;
  /**
   * The simulated user's display name (2 to 24 characters).
   * @defaultValue `'Test user'`
   */
  readonly userName?: string;
  /**
   * Default time limit of the `waitFor…` helpers, in ms of real time.
   * @defaultValue `5000`
   */
  readonly timeoutMs?: number;
}

/** The world's defaults, in one place. */
export const DEFAULT_TEST_WORLD_OPTIONS = {
  server: { virtualTime: true, passwordHashing: { logN: 10 }, agentTokenBcryptCost: 4 },
  agent: { mode: 'websocket', connect: true, name: 'Test agent' },
  userName: 'Test user',
  timeoutMs: 5_000,
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
