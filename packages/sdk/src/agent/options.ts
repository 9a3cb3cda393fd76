/**
 * Options of the {@link Agent}: what callers pass, every default in one
 * place, and the checks made at construction.
 *
 * @module
 */
import type { KeyChangePolicy, KeyPinStore } from '../messaging/key-pins.js';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { systemClock, type Clock } from '../core/clock.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import type { RateLimiter } from '../core/rate-limiter.js';
import { consoleLogger, redactingLogger, silentLogger, type Logger } from '../core/logger.js';
import { isAgentToken } from '../core/protocol/agent-token.js';
import { IdentifierSchema } from '../core/protocol/primitives.js';
import { agentWebSocketUrl } from '../core/protocol/ws-close.js';
import type { CryptoBackend } from '../crypto/backend/types.js';
import type { OpenWorkersSetting } from '../crypto/open-pool/pool.js';
import { FileKeyStore } from '../crypto/key-store/file-key-store.js';
import type { KeyStore } from '../crypto/key-store/key-store.js';
import { parseBaseUrl, type RetryOptions } from '../transport/rest/options.js';
import type { BackoffOptions } from '../transport/ws/backoff.js';
import type { HeartbeatOptions } from '../transport/ws/heartbeat.js';
import type { WebSocketConstructor } from '../transport/ws/socket.js';
import { DEFAULT_WEBHOOK_OPTIONS } from '../webhook/constants.js';
import { MESSAGE_DEDUP_MEMORY_MS } from '../crypto/freshness.js';
import { createMemoryDedupStore } from '../webhook/dedup/memory.js';
import type { DedupStore } from '../webhook/dedup/types.js';
import type { WebhookSecretInput } from '../webhook/secrets.js';
import { DEFAULT_ORDERING } from './ordering.js';
import { resolveTurnOptions, type ResolvedTurnOptions, type TurnOptions } from './turns/strategy.js';
import type { StatusIndicatorOptions } from './presence.js';
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

/** Options of the built-in signal handling ({@link AgentOptions.shutdownSignals}). */
export interface ShutdownSignalsOptions {
  /** The signals handled. @defaultValue `['SIGINT', 'SIGTERM']` */
  signals?: readonly NodeJS.Signals[];
  /** How long to wait for running handlers, ms. @defaultValue the `closeTimeoutMs` option */
  timeoutMs?: number;
  /** Exit the process once closed (`false`: only close; your code exits). @defaultValue `true` */
  exit?: boolean;
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
  /**
   * Where log lines go (redacted: no tokens or keys). `false` turns logging off.
   * @defaultValue warnings and errors to the console ({@link consoleLogger}), so a failure is never silent
   */
  logger?: Logger | false;
  /** Source of time and timers. @defaultValue `systemClock` */
  clock?: Clock;
  /**
   * De-duplication store shared by both transports (delivery ids and message
   * ids). Use the Redis store when several replicas receive webhooks. It
   * must remember completed ids for at least 24 h 10 min (signed envelopes
   * are accepted up to 24 h 5 min old and 5 min ahead, see
   * `MESSAGE_DEDUP_MEMORY_MS`): give your store `windowMs: MESSAGE_DEDUP_MEMORY_MS`.
   * @defaultValue an in-memory store remembering ids for 25 h (`MESSAGE_DEDUP_MEMORY_MS`)
   */
  dedupStore?: DedupStore;
  /** Handlers running at once across conversations (always one at a time within a conversation). @defaultValue `16` */
  concurrency?: number;
  /**
   * The automatic "working" status while a `message.new` handler runs, and
   * the keep-alive of `ctx.status()` (docs/agent.md, "Status"). `false`: no
   * automatic indicator (`ctx.status()` still works).
   * @defaultValue `{ auto: true, delayMs: 500, ttlMs: 15000 }`
   */
  status?: StatusIndicatorOptions | false;
  /**
   * Read receipts, opt-in: `true` lets `agent.markRead()` send sealed
   * receipts and emits the receipts of others as `messageRead`. Off, nothing
   * is sent and received receipts are dropped (docs/agent.md, "Edits,
   * deletes and read receipts").
   * @defaultValue `false`
   */
  readReceipts?: boolean;
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
  /**
   * Send limits used instead of this process's own (messages, object fetches,
   * uploads, manifest updates): pass `createRedisRateLimiters(...)` from
   * `agent-messaging-sdk/webhook/redis` so every copy of the agent shares the
   * service's per-agent limits (docs/production.md). `manifests` is taken
   * before each `agent.manifest.update()` request, after the copy's own wait.
   * @defaultValue per-process limits at the service's figures
   */
  rateLimiters?: Readonly<Partial<Record<'messages' | 'objects' | 'files' | 'manifests', RateLimiter>>>;
  /** How long `close()` waits for running handlers, ms. @defaultValue `10000` */
  closeTimeoutMs?: number;
  /**
   * How long a claimed event is protected from a concurrent copy, ms. In
   * WebSocket mode with a store that renews claims (the in-memory and Redis
   * stores), the lease is renewed every third of it while the handler runs,
   * so a short lease is safe for long handlers and a dead copy's claim
   * lapses within seconds.
   * @defaultValue `15000` in WebSocket mode with a renewing store, else `600000`
   */
  claimLeaseMs?: number;
  /**
   * How copies of this agent share its WebSocket delivery (docs/production.md).
   * `exclusive`: one live socket; a second copy takes it over and the first
   * stops for good (`TRANSPORT_REPLACED`, "two copies of this bot are
   * running"). `shared`: up to 10 copies stay connected side by side, each
   * conversation going to one of them; give every copy the same keys and a
   * shared `dedupStore` (Redis) for exactly-once handling.
   * @defaultValue `'exclusive'`
   */
  copies?: 'exclusive' | 'shared';
  /** Webhook receiver options (webhook mode); may also be given to `agent.webhook()`. */
  webhook?: AgentWebhookOptions;
  /**
   * Once `connect()` is called, SIGINT and SIGTERM close the agent (handlers
   * finish, acks are sent), then the process exits: 0 when drained, 1 when
   * events were abandoned; a second signal exits at once with 130 (SIGINT) or
   * 143 (SIGTERM). Removed again by `close()` and on `fatal`. Pass `false` in
   * a library, or when your own code handles signals.
   * @defaultValue `true` (Node only)
   */
  shutdownSignals?: boolean | ShutdownSignalsOptions;
  /** Random source in [0, 1) for back-off jitter. @defaultValue `Math.random` */
  random?: () => number;
  /** Crypto backend for opening and sealing. @defaultValue node:crypto */
  backend?: CryptoBackend;
  /**
   * Where envelopes are opened (docs/performance.md, "Opening on worker threads"):
   * - `'auto'`: on the calling thread for a trickle; once 8 envelopes
   *   (`AUTO_IN_FLIGHT_THRESHOLD`) are being opened at once, also
   *   on worker threads (one per core, at most 4, none on a single core), started when first
   *   needed, stopped after 30 s without work, never keeping the process alive;
   * - a number: that many worker threads, used for every envelope;
   * - `false`: always on the calling thread.
   *
   * Workers hold the agent's key pairs (sent once, and again after a
   * rotation) and open with node:crypto, so a custom `backend` keeps opening on
   * the calling thread. Where there are no worker threads (Workers, browsers,
   * the SDK bundled without its `open-worker` file), envelopes are opened on
   * the calling thread. Handlers see each conversation's events in order either way.
   *
   * Off by default for now: measured on 2 cores, the hand-over costs more CPU
   * per message than it saves (docs/performance.md, "Measured").
   * @defaultValue `false`
   */
  openWorkers?: OpenWorkersSetting;
  /**
   * Open legacy v1.0 envelopes (no key commitment, no signed event type): an
   * explicit opt-in for a migration period only (security issue #24, item 10).
   *
   * The risk of `true`: a v1.0 envelope's content key is not committed, so a
   * sender (or anyone who can sign as one) can make one envelope open to
   * different plaintexts for different recipients, and its event type is not
   * signed, so a relay can deliver its payload under another type. Turn it on
   * only to read envelopes from peers that still seal v1.0, and off again once
   * they seal v1.1 (every SDK sender seals v1.1). v1.0 is not read from 2.0 on.
   * @defaultValue `false`
   */
  acceptLegacyV10?: boolean;
  /**
   * What a peer's key change does (keys are pinned on first use): `'warn'`
   * accepts, re-pins, emits `keyChanged` and logs a warning; `'block'` refuses
   * to seal to or open from the peer (`CryptoError` `KEY_CHANGED`) until
   * `agent.confirmKey(peerId)`, and refuses to seal for a conversation that
   * gained a member (`MEMBERS_CHANGED`) until `agent.confirmMembers(id)`.
   * @defaultValue `'warn'`
   */
  keyChangePolicy?: KeyChangePolicy;
  /**
   * Where peers' pinned keys are kept.
   * @defaultValue the key store's `pinStore()` when it has one (`FileKeyStore`: `pins.json` beside the keys), so a restart is not a first answer; else in memory
   */
  keyPinStore?: KeyPinStore;
  /**
   * The user id of this agent's owner: `agent.capability_changed` is accepted
   * only when signed by this user's key (docs/manifests.md). Set it to pin the
   * owner; without it the owner id is read once from `GET /agents/:id`
   * (`owner_id`) and kept for the life of the Agent (trusted on first use).
   * @defaultValue the service's `owner_id`, read once
   */
  ownerId?: string;
  /**
   * WebSocket flow control: above `highWaterMark` events (or `highWaterBytes`)
   * received but not finished, the agent stops reading the socket (`ws` only)
   * until they fall to the low-water marks. `false` turns it off.
   * @defaultValue `{ highWaterMark: 1024, lowWaterMark: 512, highWaterBytes: 64 MiB, lowWaterBytes: 32 MiB }`
   */
  flowControl?: FlowControlOptions | false;
  /**
   * How a conversation's messages become turns (docs/agent.md, "Turns"):
   * `serial`, `debounce` (with `windowMs`, `maxMessages`), `latest` or
   * `concurrent`; a conversation may override it (`agent.setTurnStrategy`).
   * @defaultValue `{ strategy: 'serial', windowMs: 1500, maxMessages: 20 }`
   */
  turns?: TurnOptions;
}

/** The claim lease of a WebSocket agent whose store renews claims while handlers run, ms. */
export const RENEWED_CLAIM_LEASE_MS = 15_000;

function copiesOf(copies: AgentOptions['copies']): 'exclusive' | 'shared' {
  if (copies === undefined || copies === 'exclusive' || copies === 'shared') return copies ?? 'exclusive';
  throw bad('copies', 'must be "exclusive" or "shared"');
}

/** Every default of the Agent. */
export const DEFAULT_AGENT_OPTIONS = {
  mode: 'websocket',
  concurrency: DEFAULT_ORDERING.concurrency,
  autoRecover: true,
  closeTimeoutMs: 10_000,
  claimLeaseMs: DEFAULT_WEBHOOK_OPTIONS.claimLeaseMs,
  keyDirEnv: 'AMS_KEY_DIR',
  shutdownSignals: ['SIGINT', 'SIGTERM'],
} as const satisfies {
  mode: AgentMode;
  concurrency: number;
  autoRecover: boolean;
  closeTimeoutMs: number;
  claimLeaseMs: number;
  keyDirEnv: string;
  shutdownSignals: readonly NodeJS.Signals[];
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
  readonly copies: 'exclusive' | 'shared';
  readonly flowControl: Required<FlowControlOptions> | false;
  /** The resolved signal handling, or false. */
  readonly shutdownSignals: Required<ShutdownSignalsOptions> | false;
  readonly turns: ResolvedTurnOptions;
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
    return new FileKeyStore({ directory: agentKeyDirectory(dir, o.agentId), clock, logger: loggerOf(o) });
  throw bad(
    'keyStore',
    `is required unless ${DEFAULT_AGENT_OPTIONS.keyDirEnv} is set: pass new FileKeyStore({ directory }) so keys survive a restart (MemoryKeyStore only for ephemeral agents)`,
  );
}

function loggerOf(o: AgentOptions): Logger {
  if (o.logger === false) return silentLogger;
  if (o.logger === undefined) return redactingLogger(consoleLogger());
  return redactingLogger(o.logger);
}

function shutdownOf(o: AgentOptions, closeTimeoutMs: number): Required<ShutdownSignalsOptions> | false {
  const s = o.shutdownSignals ?? true;
  if (s === false) return false;
  const given = s === true ? {} : s;
  if (typeof given !== 'object' || given === null)
    throw bad('shutdownSignals', 'must be a boolean or { signals, timeoutMs, exit }');
  const timeoutMs = given.timeoutMs ?? closeTimeoutMs;
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 0))
    throw bad('shutdownSignals.timeoutMs', 'must be a number of ms ≥ 0');
  return {
    signals: given.signals ?? DEFAULT_AGENT_OPTIONS.shutdownSignals,
    timeoutMs,
    exit: given.exit ?? true,
  };
}

/** Most worker threads `openWorkers` may ask for. */
export const MAX_OPEN_WORKERS = 16;

function checkOpenWorkers(value: unknown): void {
  if (value === undefined || value === 'auto' || value === false) return;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_OPEN_WORKERS)
    return;
  throw bad(
    'openWorkers',
    `must be "auto", false or a whole number of worker threads from 1 to ${MAX_OPEN_WORKERS}`,
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
  if (o.readReceipts !== undefined && typeof o.readReceipts !== 'boolean')
    throw bad('readReceipts', 'must be a boolean');
  if (mode !== 'websocket' && mode !== 'webhook') throw bad('mode', 'must be "websocket" or "webhook"');
  const clock = o.clock ?? systemClock;
  const dedupStore = o.dedupStore ?? createMemoryDedupStore({ clock, windowMs: MESSAGE_DEDUP_MEMORY_MS });
  const closeTimeoutMs = o.closeTimeoutMs ?? DEFAULT_AGENT_OPTIONS.closeTimeoutMs;
  if (!(Number.isFinite(closeTimeoutMs) && closeTimeoutMs >= 0))
    throw bad('closeTimeoutMs', 'must be a number of ms ≥ 0');
  if (o.autoRecover !== undefined && typeof o.autoRecover !== 'boolean')
    throw bad('autoRecover', 'must be a boolean');
  if (o.acceptLegacyV10 !== undefined && typeof o.acceptLegacyV10 !== 'boolean')
    throw bad('acceptLegacyV10', 'must be a boolean');
  checkOpenWorkers(o.openWorkers);
  if (o.keyChangePolicy !== undefined && o.keyChangePolicy !== 'warn' && o.keyChangePolicy !== 'block')
    throw bad('keyChangePolicy', 'must be "warn" or "block"');
  if (o.ownerId !== undefined && !IdentifierSchema.safeParse(o.ownerId).success)
    throw bad('ownerId', 'must be a non-empty identifier');
  return {
    baseUrl,
    agentId: o.agentId,
    token: o.token,
    mode,
    keyStore: keyStoreOf(o, clock),
    logger: loggerOf(o),
    clock,
    dedupStore,
    concurrency: positiveInt(o.concurrency, DEFAULT_AGENT_OPTIONS.concurrency, 'concurrency'),
    autoRecover: o.autoRecover ?? DEFAULT_AGENT_OPTIONS.autoRecover,
    webSocketUrl: String(o.webSocketUrl ?? agentWebSocketUrl(baseUrl)),
    closeTimeoutMs,
    claimLeaseMs: positiveInt(
      o.claimLeaseMs,
      mode === 'websocket' && typeof dedupStore.renew === 'function'
        ? RENEWED_CLAIM_LEASE_MS
        : DEFAULT_AGENT_OPTIONS.claimLeaseMs,
      'claimLeaseMs',
    ),
    copies: copiesOf(o.copies),
    flowControl: resolveFlowControl(o.flowControl),
    shutdownSignals: shutdownOf(o, closeTimeoutMs),
    turns: resolveTurnOptions(o.turns),
    source: o,
  };
}
