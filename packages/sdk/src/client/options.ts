/**
 * Options of the {@link UserClient}: what callers pass, the defaults in one
 * place, and their validation at construction.
 *
 * @module
 */
import type { KeyChangePolicy, KeyPinStore } from '../messaging/key-pins.js';
import type { Dispatcher } from 'undici';
import { systemClock, type Clock } from '../core/clock.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { redactingLogger, silentLogger, type Logger } from '../core/logger.js';
import { DeviceIdSchema, type Argon2Params } from '../core/protocol/key-backup.js';
import { agentWebSocketUrl } from '../core/protocol/ws-close.js';
import type { RetryOptions } from '../transport/rest/options.js';
import { emptyBaseUrl } from '../core/empty-base-url.js';
import type { BackoffOptions } from '../transport/ws/backoff.js';
import type { WebSocketConstructor } from '../transport/ws/socket.js';
import { STREAM_DEADLINE_MS, type StreamReplayStore } from './streams/receiver.js';

/** Argon2id cost of the key backup the client creates and restores. */
export interface KeyBackupCostOptions {
  /**
   * Parameters of new backups. Lower only in tests (with `minParams`).
   * @defaultValue `DEFAULT_ARGON2_PARAMS` (m 64 MiB, t 3, p 4)
   */
  params?: Argon2Params;
  /**
   * The floor a backup's parameters must reach (creating and restoring). Lower only in tests.
   * @defaultValue `ARGON2_PARAMS_FLOOR` (m 19 MiB, t 2, p 1)
   */
  minParams?: Argon2Params;
}

/** Options of {@link UserClient}. */
export interface UserClientOptions {
  /** The service's base URL, e.g. `https://api.example.com`. */
  baseUrl: string | URL;
  /**
   * This device's hardware-unique identifier, sent with every sign-in and in
   * the key backup. Persist it and pass it again: a new id is a new device
   * (an account has at most 5).
   * @defaultValue a random UUID per client
   */
  deviceId?: string;
  /** The device's display name (unique per account). @defaultValue the service's choice */
  deviceName?: string;
  /** Argon2id cost of the key backup. */
  keyBackup?: KeyBackupCostOptions;
  /**
   * Plain-http origins that may receive the Secure refresh cookie anyway.
   * Loopback hosts (`localhost`, `127.0.0.0/8`, `::1`) always may.
   * @defaultValue none
   */
  insecureCookieOrigins?: readonly string[];
  /** Time source (cookie expiry, reconnect back-off, `created_at`, the replay window). @defaultValue `systemClock` */
  clock?: Clock;
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
   * `client.confirmKey(peerId)`, and refuses to seal for a conversation that
   * gained a member (`MEMBERS_CHANGED`) until `client.confirmMembers(id)`.
   * @defaultValue `'warn'`
   */
  keyChangePolicy?: KeyChangePolicy;
  /**
   * What this user's client does, as the owner of a group, when a member joins
   * by invite code (`groupUpdated` with `change: 'joined'`): `'auto'` signs a
   * new roster version admitting them (`client.groups.admit`), so members seal
   * to them; `'manual'` leaves that to you (until then no member seals to
   * them). The service could report a join that never happened: choose
   * `'manual'` to admit only members you expect (docs/groups.md).
   * @defaultValue `'auto'`
   */
  groupAdmission?: 'auto' | 'manual';
  /**
   * Where peers' pinned keys are kept.
   * @defaultValue in memory: the user's keys live in memory, so pins are lost on restart (pass a `FilePinStore` to keep them)
   */
  keyPinStore?: KeyPinStore;
  /** Where log lines go (redacted; never tokens, keys or plaintext). @defaultValue silent */
  logger?: Logger;
  /** undici dispatcher for REST calls. @defaultValue a shared keep-alive `Agent` */
  dispatcher?: Dispatcher;
  /** REST retry behaviour. @defaultValue the REST client's */
  retry?: RetryOptions;
  /** Deadline of one REST attempt, ms. @defaultValue `15000` */
  timeoutMs?: number;
  /** WebSocket constructor. @defaultValue the `ws` package */
  WebSocket?: WebSocketConstructor;
  /** WebSocket reconnect back-off. @defaultValue `{ baseMs: 1000, capMs: 30000, stableAfterMs: 30000 }` */
  backoff?: Omit<BackoffOptions, 'random'>;
  /** From opening the WebSocket to `auth.ok`, ms. @defaultValue `10000` */
  authTimeoutMs?: number;
  /** The WebSocket address. @defaultValue `baseUrl` with `ws(s)://` and path `/ws` */
  webSocketUrl?: string | URL;
  /**
   * Ask for acknowledged delivery (`ack: true` in `auth`): the service keeps
   * what this device has not acknowledged and sends it again after a
   * reconnect, so nothing that arrived while disconnected is missed. `false`
   * gives the older "what is pushed while connected" behaviour.
   * @defaultValue `true`
   */
  acks?: boolean;
  /** How long peers' public keys are cached, ms. @defaultValue `300000` */
  keyCacheTtlMs?: number;
  /**
   * The client's own deadline of a received stream, ms from its start: a
   * stream the service never ends fails with reason `deadline` then.
   * @defaultValue `330000` (the service's 5-minute stream limit plus 30 s, {@link STREAM_DEADLINE_MS})
   */
  streamDeadlineMs?: number;
  /**
   * Where the ids of finished streams are remembered for 25 h, so a captured
   * stream replayed later is refused (`streamError` reason `replayed`). Give a
   * persistent store to refuse a replay after a restart too.
   * @defaultValue in memory (10 000 ids; a restart forgets them)
   */
  streamReplayStore?: StreamReplayStore;
  /**
   * Read receipts, opt-in: `true` lets `markRead()` send sealed receipts and
   * emits the receipts of others as `messageRead`. Off, nothing is sent and
   * received receipts are dropped (docs/user-client.md, "Edits, deletes and
   * read receipts").
   * @defaultValue `false`
   */
  readReceipts?: boolean;
}

/** Every default of the user client. */
export const DEFAULT_USER_CLIENT_OPTIONS = {
  authTimeoutMs: 10_000,
  keyCacheTtlMs: 300_000,
} as const satisfies { authTimeoutMs: number; keyCacheTtlMs: number };

/** Options after defaults and validation. */
export interface ResolvedUserClientOptions {
  readonly baseUrl: URL;
  readonly wsUrl: string;
  readonly deviceId: string;
  readonly deviceName: string | undefined;
  readonly keyBackup: KeyBackupCostOptions;
  readonly insecureCookieOrigins: readonly string[];
  readonly clock: Clock;
  readonly logger: Logger;
  readonly authTimeoutMs: number;
  readonly keyCacheTtlMs: number;
  readonly acceptLegacyV10: boolean;
  /** See {@link UserClientOptions.keyChangePolicy}. */
  readonly keyChangePolicy: KeyChangePolicy;
  /** See {@link UserClientOptions.keyPinStore}. */
  readonly keyPinStore: KeyPinStore | undefined;
  /** See {@link UserClientOptions.groupAdmission}. */
  readonly groupAdmission: 'auto' | 'manual';
  readonly acks: boolean;
  /** See {@link UserClientOptions.streamDeadlineMs}. */
  readonly streamDeadlineMs: number;
  /** See {@link UserClientOptions.streamReplayStore}. */
  readonly streamReplayStore: StreamReplayStore | undefined;
  /** See {@link UserClientOptions.readReceipts}. */
  readonly readReceipts: boolean;
}

function bad(option: string, rule: string, cause?: unknown): ConfigurationError {
  return new ConfigurationError({ option, message: `Option "${option}" ${rule}.`, cause });
}

function urlOf(value: string | URL): URL {
  if (typeof value === 'string' && value.trim() === '') throw emptyBaseUrl();
  let url: URL;
  try {
    url = new URL(String(value));
  } catch (cause) {
    throw bad('baseUrl', 'must be an absolute http(s) URL', cause);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw bad('baseUrl', 'must be an absolute http(s) URL');
  return url;
}

function positive(value: number | undefined, fallback: number, option: string): number {
  const v = value ?? fallback;
  if (!(Number.isFinite(v) && v > 0)) throw bad(option, 'must be a positive number of ms');
  return v;
}

function legacyOption(value: unknown): boolean {
  if (value !== undefined && typeof value !== 'boolean') throw bad('acceptLegacyV10', 'must be a boolean');
  return value ?? false;
}

/**
 * Applies defaults and checks the options the client reads itself (the REST
 * client checks its own).
 *
 * @throws {@link ConfigurationError} naming the first bad option.
 */
export function resolveUserClientOptions(o: UserClientOptions): ResolvedUserClientOptions {
  const baseUrl = urlOf(o.baseUrl);
  const deviceId = o.deviceId ?? globalThis.crypto.randomUUID();
  if (!DeviceIdSchema.safeParse(deviceId).success)
    throw bad('deviceId', 'must be 1–256 characters without control characters');
  for (const origin of o.insecureCookieOrigins ?? []) {
    try {
      new URL(origin);
    } catch (cause) {
      throw bad('insecureCookieOrigins', 'must list absolute URLs', cause);
    }
  }
  const d = DEFAULT_USER_CLIENT_OPTIONS;
  return {
    baseUrl,
    wsUrl: String(o.webSocketUrl ?? agentWebSocketUrl(baseUrl)),
    acks: o.acks ?? true,
    deviceId,
    deviceName: o.deviceName,
    keyBackup: o.keyBackup ?? {},
    insecureCookieOrigins: o.insecureCookieOrigins ?? [],
    clock: o.clock ?? systemClock,
    logger: redactingLogger(o.logger ?? silentLogger),
    authTimeoutMs: positive(o.authTimeoutMs, d.authTimeoutMs, 'authTimeoutMs'),
    keyCacheTtlMs: o.keyCacheTtlMs ?? d.keyCacheTtlMs,
    acceptLegacyV10: legacyOption(o.acceptLegacyV10),
    keyChangePolicy: policyOption(o.keyChangePolicy),
    keyPinStore: o.keyPinStore,
    streamDeadlineMs: positive(o.streamDeadlineMs, STREAM_DEADLINE_MS, 'streamDeadlineMs'),
    streamReplayStore: o.streamReplayStore,
    groupAdmission: admissionOption(o.groupAdmission),
    readReceipts: receiptsOption(o.readReceipts),
  };
}

function receiptsOption(value: unknown): boolean {
  if (value !== undefined && typeof value !== 'boolean') throw bad('readReceipts', 'must be a boolean');
  return value ?? false;
}

function admissionOption(value: unknown): 'auto' | 'manual' {
  if (value === undefined) return 'auto';
  if (value === 'auto' || value === 'manual') return value;
  throw bad('groupAdmission', 'must be "auto" or "manual"');
}

function policyOption(value: unknown): KeyChangePolicy {
  if (value === undefined) return 'warn';
  if (value === 'warn' || value === 'block') return value;
  throw bad('keyChangePolicy', 'must be "warn" or "block"');
}
