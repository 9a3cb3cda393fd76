/**
 * Options of the {@link Agent}: what callers pass, every default in one
 * place, and the checks made at construction.
 *
 * @module
 */
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { systemClock, type Clock } from '../core/clock.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { redactingLogger, silentLogger, type Logger } from '../core/logger.js';
import { isAgentToken } from '../core/protocol/agent-token.js';
import { IdentifierSchema } from '../core/protocol/primitives.js';
import { agentWebSocketUrl } from '../core/protocol/ws-close.js';
import type { CryptoBackend } from '../crypto/backend/types.js';
import { FileKeyStore } from '../crypto/key-store/file-key-store.js';
import type { KeyStore } from '../crypto/key-store/key-store.js';
import { parseBaseUrl, type RetryOptions } from '../transport/rest/options.js';
import type { BackoffOptions } from '../transport/ws/backoff.js';
import type { HeartbeatOptions } from '../transport/ws/heartbeat.js';
import type { WebSocketConstructor } from '../transport/ws/socket.js';
import { DEFAULT_WEBHOOK_OPTIONS } from '../webhook/constants.js';
import { createMemoryDedupStore } from '../webhook/dedup/memory.js';
import type { DedupStore } from '../webhook/dedup/types.js';
import type { WebhookSecretInput } from '../webhook/secrets.js';
import { DEFAULT_ORDERING } from './ordering.js';
import { resolveFlowControl, type FlowControlOptions } from './pipeline/flow-control.js';

/** How the agent receives events. */
export type AgentMode = 'websocket' | 'webhook';

/** Options of the agent's webhook receiver (webhook mode). */
export interface AgentWebhookOptions {
  /** The webhook secret exactly as issued (at least 32 bytes), or several during a rotation. */
  secret: WebhookSecretInput;
  /**
   * Answer 200 once a delivery is verified, claimed and opened, then run the
   * handlers (for work longer than the service's 10 s). A handler failure can
   * then no longer cause a redelivery.
   * @defaultValue `false`
   */
  respondEarly?: boolean;
  /** Timestamp tolerance, at most 300 s. @defaultValue `300_000` */
  toleranceMs?: number;
  /**
   * Retry-After (seconds) of the 429 answer to a delivery this agent is
   * handling right now (e.g. a WebSocket copy still running after a switch to
   * webhook mode): the service asks again this much later.
   * @defaultValue `2`
   */
  inFlightRetryAfterSeconds?: number;
}

/** Options of `new Agent()`. */
export interface AgentOptions {
  /** The service's base URL, e.g. `https://api.example.com`. */
  baseUrl: string | URL;
  /** The agent's id. */
  agentId: string;
  /** The agent token (`hsk_…`). Never logged, never in a URL. Replace it with `agent.renewToken()`. */
  token: string;
  /** How events arrive. @defaultValue `'websocket'` */
  mode?: AgentMode;
  /**
   * Where the agent's private keys live between runs.
   * @defaultValue a `FileKeyStore` in `$AMS_KEY_DIR/<agentId>` when `AMS_KEY_DIR` is set;
   * otherwise this option is required (keys must survive a restart)
   */
  keyStore?: KeyStore;
  /** Where log lines go (redacted: no tokens, keys or plaintext). @defaultValue silent */
  logger?: Logger;
  /** Source of time and timers. @defaultValue `systemClock` */
  clock?: Clock;
  /**
   * De-duplication store shared by both transports (delivery ids and message
   * ids). Use the Redis store when several replicas receive webhooks.
   * @defaultValue an in-memory store (24 h window)
   */
  dedupStore?: DedupStore;
  /** Handlers running at once across conversations (always one at a time within a conversation). @defaultValue `16` */
  concurrency?: number;
  /** On connect, recover an `unreachable` agent (`POST /agents/:id/connection/recover`). @defaultValue `true` */
  autoRecover?: boolean;
  /** WebSocket constructor (WebSocket mode). @defaultValue the `ws` package */
  WebSocket?: WebSocketConstructor;
  /** The agent WebSocket address. @defaultValue `agentWebSocketUrl(baseUrl)` (`wss://host/ws`) */
  webSocketUrl?: string | URL;
  /** Reconnect back-off of the WebSocket. @defaultValue `{ baseMs: 1000, capMs: 30000, stableAfterMs: 30000 }` */
  reconnect?: Omit<BackoffOptions, 'random'>;
  /** WebSocket pings and dead-connection timeout. @defaultValue `{ intervalMs: 10000, timeoutMs: 25000 }` */
  heartbeat?: HeartbeatOptions;
  /**
   * WebSocket deadlines, ms: the upgrade, the answer to the `auth` frame, the close handshake.
   * @defaultValue `{ connectTimeoutMs: 10000, authTimeoutMs: 10000, closeTimeoutMs: 5000 }`
   */
  webSocketTimeouts?: { connectTimeoutMs?: number; authTimeoutMs?: number; closeTimeoutMs?: number };
  /**
   * Ask the service for acknowledged WebSocket delivery: each event is
   * acknowledged once done with, and the service sends unacknowledged ones
   * again (docs/agent.md, "Delivery guarantees"). Turn off only to measure
   * or to test against a service without acks.
   * @defaultValue `true`
   */
  acks?: boolean;
  /** undici dispatcher for REST calls (tests pass a `MockAgent`). @defaultValue a shared keep-alive pool */
  dispatcher?: Dispatcher;
  /** REST retry behaviour (429, 502–504, network errors on idempotent requests). */
  retry?: RetryOptions;
  /** How long `close()` waits for running handlers, ms. @defaultValue `10000` */
  closeTimeoutMs?: number;
  /** How long a claimed event is protected from a concurrent copy, ms. @defaultValue `600000` */
  claimLeaseMs?: number;
  /** Webhook receiver options (webhook mode); may also be given to `agent.webhook()`. */
  webhook?: AgentWebhookOptions;
  /** Random source in [0, 1) for back-off jitter. @defaultValue `Math.random` */
  random?: () => number;
  /** Crypto backend for opening and sealing. @defaultValue node:crypto */
  backend?: CryptoBackend;
  /**
   * WebSocket flow control: above `highWaterMark` events (or `highWaterBytes`)
   * received but not finished, the agent stops reading the socket (`ws` only)
   * until they fall to the low-water marks. `false` turns it off.
   * @defaultValue `{ highWaterMark: 1024, lowWaterMark: 512, highWaterBytes: 64 MiB, lowWaterBytes: 32 MiB }`
   */
  flowControl?: FlowControlOptions | false;
}

/** Every default of the Agent. */
export const DEFAULT_AGENT_OPTIONS = {
  mode: 'websocket',
  concurrency: DEFAULT_ORDERING.concurrency,
  autoRecover: true,
  closeTimeoutMs: 10_000,
  claimLeaseMs: DEFAULT_WEBHOOK_OPTIONS.claimLeaseMs,
  keyDirEnv: 'AMS_KEY_DIR',
} as const satisfies {
  mode: AgentMode;
  concurrency: number;
  autoRecover: boolean;
  closeTimeoutMs: number;
  claimLeaseMs: number;
  keyDirEnv: string;
};

/** Options after defaults and checks. */
export interface ResolvedAgentOptions {
  readonly baseUrl: string;
  readonly agentId: string;
  readonly token: string;
  readonly mode: AgentMode;
  readonly keyStore: KeyStore;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly dedupStore: DedupStore;
  readonly concurrency: number;
  readonly autoRecover: boolean;
  readonly webSocketUrl: string;
  readonly closeTimeoutMs: number;
  readonly claimLeaseMs: number;
  readonly flowControl: Required<FlowControlOptions> | false;
  readonly source: AgentOptions;
}

function bad(option: string, rule: string): ConfigurationError {
  return new ConfigurationError({ option, message: `Option "${option}" ${rule}.` });
}

function positiveInt(value: number | undefined, fallback: number, option: string): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1) throw bad(option, 'must be a positive integer');
  return v;
}

function baseUrlOf(value: string | URL): string {
  return parseBaseUrl(value).href.replace(/\/+$/, '');
}

function keyStoreOf(o: AgentOptions, clock: Clock): KeyStore {
  if (o.keyStore !== undefined) {
    const s = o.keyStore as Partial<KeyStore>;
    if (typeof s.load !== 'function' || typeof s.save !== 'function' || typeof s.wipe !== 'function') {
      throw bad('keyStore', 'must have load(), save() and wipe()');
    }
    return o.keyStore;
  }
  const dir = globalThis.process?.env?.[DEFAULT_AGENT_OPTIONS.keyDirEnv];
  if (typeof dir === 'string' && dir !== '')
    return new FileKeyStore({
      directory: agentKeyDirectory(dir, o.agentId),
      clock,
      logger: o.logger ?? silentLogger,
    });
  throw bad(
    'keyStore',
    `is required unless ${DEFAULT_AGENT_OPTIONS.keyDirEnv} is set: pass new FileKeyStore({ directory }) so keys survive a restart (MemoryKeyStore only for ephemeral agents)`,
  );
}

/**
 * The key directory of one agent under a key root (`$AMS_KEY_DIR`):
 * `<root>/<agentId>`. The Agent's default key store and `ams keygen` both use
 * it, so a key made by `ams keygen` is the one the agent loads.
 */
export function agentKeyDirectory(root: string, agentId: string): string {
  return join(root, agentId);
}

/**
 * Applies defaults and checks every option.
 *
 * @throws {@link ConfigurationError} naming the first bad option.
 */
export function resolveAgentOptions(o: AgentOptions): ResolvedAgentOptions {
  if (typeof o !== 'object' || o === null) throw bad('options', 'must be an object');
  const baseUrl = baseUrlOf(o.baseUrl);
  if (!IdentifierSchema.safeParse(o.agentId).success) throw bad('agentId', 'must be a non-empty identifier');
  if (!isAgentToken(o.token))
    throw bad('token', 'must be an agent token (hsk_ followed by 40 base62 characters)');
  const mode = o.mode ?? DEFAULT_AGENT_OPTIONS.mode;
  if (mode !== 'websocket' && mode !== 'webhook') throw bad('mode', 'must be "websocket" or "webhook"');
  const clock = o.clock ?? systemClock;
  const closeTimeoutMs = o.closeTimeoutMs ?? DEFAULT_AGENT_OPTIONS.closeTimeoutMs;
  if (!(Number.isFinite(closeTimeoutMs) && closeTimeoutMs >= 0))
    throw bad('closeTimeoutMs', 'must be a number of ms ≥ 0');
  if (o.autoRecover !== undefined && typeof o.autoRecover !== 'boolean')
    throw bad('autoRecover', 'must be a boolean');
  return {
    baseUrl,
    agentId: o.agentId,
    token: o.token,
    mode,
    keyStore: keyStoreOf(o, clock),
    logger: redactingLogger(o.logger ?? silentLogger),
    clock,
    dedupStore: o.dedupStore ?? createMemoryDedupStore({ clock }),
    concurrency: positiveInt(o.concurrency, DEFAULT_AGENT_OPTIONS.concurrency, 'concurrency'),
    autoRecover: o.autoRecover ?? DEFAULT_AGENT_OPTIONS.autoRecover,
    webSocketUrl: String(o.webSocketUrl ?? agentWebSocketUrl(baseUrl)),
    closeTimeoutMs,
    claimLeaseMs: positiveInt(o.claimLeaseMs, DEFAULT_AGENT_OPTIONS.claimLeaseMs, 'claimLeaseMs'),
    flowControl: resolveFlowControl(o.flowControl),
    source: o,
  };
}
