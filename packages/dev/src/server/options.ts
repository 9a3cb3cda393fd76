/**
 * Options of the reference server, their defaults in one place, and their
 * validation at start-up.
 *
 * @module
 */
import { ConfigurationError } from 'agent-messaging-sdk/protocol';
import type { Clock } from 'agent-messaging-sdk/protocol';
import type { PasswordHashingOptions } from './auth/password-hash.js';
import type { Mailer } from './auth/mailbox.js';
import type { TurnstileVerifier } from './auth/turnstile.js';
import type { WsAckOptions } from './delivery/types.js';
import { DEFAULT_DELIVERY_ENGINE_OPTIONS } from './delivery/options.js';
import type { ActivityListener } from './activity.js';

/** Lines the server may log. Never receives passwords, codes or tokens. */
export interface ServerLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** WebAuthn relying-party settings. */
export interface WebAuthnOptions {
  /**
   * Relying party id (a registrable domain).
   * @defaultValue `'localhost'`
   */
  readonly rpId?: string;
  /**
   * Relying party name shown by authenticators.
   * @defaultValue `'Agent Messaging (reference server)'`
   */
  readonly rpName?: string;
  /**
   * Origins accepted in `clientDataJSON`.
   * @defaultValue `http://localhost`, `https://localhost` and the server's own `http://localhost:<port>`
   */
  readonly origins?: readonly string[];
}

/** Caller options of `startReferenceServer`. */
export interface ReferenceServerOptions {
  /**
   * Interface to listen on.
   * @defaultValue `'127.0.0.1'`
   */
  readonly host?: string;
  /**
   * Port; 0 picks a free one.
   * @defaultValue `0`
   */
  readonly port?: number;
  /**
   * Dev/test mode: enables the control API under `/_control/…`. Never enable
   * on a reachable interface: it reveals verification codes.
   * @defaultValue `true` for `startReferenceServer`, `false` for `ams serve`
   */
  readonly dev?: boolean;
  /**
   * Run on a virtual clock (`ManualClock`) that only moves when told
   * (`advanceTime`, or the control API). Ignored when `clock` is given.
   * @defaultValue `false`
   */
  readonly virtualTime?: boolean;
  /**
   * Start of virtual time, ms since the epoch.
   * @defaultValue `Date.now()`
   */
  readonly startTimeMs?: number;
  /** A clock of your own; overrides `virtualTime`. */
  readonly clock?: Clock;
  /**
   * A directory that keeps users, devices, key backups, agents (with their
   * token hashes and public keys) and relations across restarts, in an
   * embedded journal (files of mode 0600; hashes only, never a plaintext
   * token). Messages, groups, codes and webhook registrations stay in memory.
   * `ams serve --dev --data <dir>` sets it.
   * @defaultValue none: everything in memory
   */
  readonly dataDir?: string;
  /**
   * scrypt cost of account passwords. Lower it in tests that log in often.
   * @defaultValue `{ logN: 15, blockSize: 8, parallelization: 3 }`
   */
  readonly passwordHashing?: PasswordHashingOptions;
  /**
   * Largest accepted request body, in bytes.
   * @defaultValue `65536`
   */
  readonly maxBodyBytes?: number;
  /**
   * HMAC key for access tokens (≥ 32 bytes).
   * @defaultValue 32 random bytes per start
   */
  readonly jwtSecret?: Uint8Array;
  /** WebAuthn relying-party settings. */
  readonly webauthn?: WebAuthnOptions;
  /**
   * Human verification. @defaultValue a dev verifier whose policy the control API sets (all non-empty tokens pass)
   */
  readonly turnstile?: TurnstileVerifier;
  /**
   * Delivery of verification codes.
   * @defaultValue an in-memory mailbox readable through the control API
   */
  readonly mailer?: Mailer;
  /**
   * Lifetime of a verification code, in ms.
   * @defaultValue `600000` (10 minutes)
   */
  readonly verificationCodeTtlMs?: number;
  /**
   * Wrong guesses a verification code survives before it is burned.
   * @defaultValue `5`
   */
  readonly verificationCodeAttempts?: number;
  /**
   * How long before an access token expires a user WebSocket gets `auth.expiring`, in ms.
   * @defaultValue `60000`
   */
  readonly authExpiringNoticeMs?: number;
  /**
   * Where the server logs (start-up, internal errors; never secrets).
   * @defaultValue silent
   */
  /**
   * Receives one record per HTTP request and per delivery step (ids, paths,
   * status codes, attempts; never tokens or bodies), e.g. for a request log.
   * @defaultValue none
   */
  readonly onActivity?: ActivityListener;
  readonly logger?: ServerLogger;
  /**
   * bcrypt cost of agent tokens (4 to 15). The service uses 10; lower it only in
   * tests that create many agents.
   * @defaultValue `10`
   */
  readonly agentTokenBcryptCost?: number;
  /**
   * Agents one user may own (AGENT_LIMIT_EXCEEDED above it).
   * @defaultValue `50`
   */
  readonly maxAgentsPerUser?: number;
  /**
   * Largest body of a message send (`wire_envelope` in base64 plus the JSON
   * around it), in bytes. Envelopes whose delivery body would exceed 1 MB are
   * relayed as objects (`ref`).
   * @defaultValue `8388608` (8 MiB)
   */
  readonly maxMessageBodyBytes?: number;
  /**
   * Largest file (plaintext bytes) an upload may carry; the cap on the
   * ciphertext adds the encryption's overhead (FILE_TOO_LARGE above it).
   * Lower it in tests.
   * @defaultValue `104857600` (100 MB)
   */
  readonly maxFileBytes?: number;
  /**
   * How long the delivery engine waits for a webhook receiver's answer, in ms.
   * @defaultValue `10000`
   */
  readonly webhookTimeoutMs?: number;
  /**
   * Offer delivery acknowledgements on agent WebSockets (the agent asks with
   * `ack: true` in `auth`; `auth.ok` then carries `ack`). Turn off only to
   * test an agent against a service without acks.
   * @defaultValue `true`
   */
  readonly wsAcks?: boolean;
  /**
   * Window, ack timeout and attempts of acknowledged WebSocket delivery.
   * @defaultValue `{ window: 256, timeoutMs: 30000, maxAttempts: 10 }`
   */
  readonly wsAck?: WsAckOptions;
}

/** Options after defaults. */
export interface ResolvedServerOptions {
  readonly host: string;
  readonly port: number;
  readonly dev: boolean;
  readonly maxBodyBytes: number;
  readonly verificationCodeTtlMs: number;
  readonly verificationCodeAttempts: number;
  readonly authExpiringNoticeMs: number;
  readonly agentTokenBcryptCost: number;
  readonly maxAgentsPerUser: number;
  readonly maxMessageBodyBytes: number;
  readonly maxFileBytes: number;
  readonly webhookTimeoutMs: number;
  readonly wsAcks: boolean;
  readonly wsAck: Required<WsAckOptions>;
  readonly webauthn: {
    readonly rpId: string;
    readonly rpName: string;
    readonly origins: readonly string[] | undefined;
  };
}

/** Defaults of the plain options. */
export const DEFAULT_SERVER_OPTIONS = {
  host: '127.0.0.1',
  port: 0,
  dev: true,
  maxBodyBytes: 65_536,
  verificationCodeTtlMs: 600_000,
  verificationCodeAttempts: 5,
  authExpiringNoticeMs: 60_000,
  agentTokenBcryptCost: 10,
  maxAgentsPerUser: 50,
  maxMessageBodyBytes: 8 * 1_048_576,
  maxFileBytes: 100 * 1_048_576,
  webhookTimeoutMs: 10_000,
} as const satisfies Partial<ResolvedServerOptions>;

/** The integer options of {@link DEFAULT_SERVER_OPTIONS}. */
type IntOption = {
  [K in keyof typeof DEFAULT_SERVER_OPTIONS]: (typeof DEFAULT_SERVER_OPTIONS)[K] extends number ? K : never;
}[keyof typeof DEFAULT_SERVER_OPTIONS];

/** Option `name` (or its default), checked to be an integer from `min` to `max`. */
function intOption(options: ReferenceServerOptions, name: IntOption, min: number, max: number): number {
  const value: number = options[name] ?? DEFAULT_SERVER_OPTIONS[name];
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError({
      option: name,
      message: `${name} must be an integer from ${min} to ${max}.`,
    });
  }
  return value;
}

/**
 * Applies defaults and checks every option.
 *
 * @throws {@link ConfigurationError} naming the bad option.
 */
export function resolveServerOptions(options: ReferenceServerOptions): ResolvedServerOptions {
  const d = DEFAULT_SERVER_OPTIONS;
  const origins = options.webauthn?.origins;
  if (origins !== undefined && origins.some((o) => !/^https?:\/\/[^/]+$/.test(o))) {
    throw new ConfigurationError({
      option: 'webauthn.origins',
      message: 'webauthn.origins must be scheme://host[:port] values.',
    });
  }
  return {
    host: options.host ?? d.host,
    port: intOption(options, 'port', 0, 65_535),
    dev: options.dev ?? d.dev,
    maxBodyBytes: intOption(options, 'maxBodyBytes', 1024, 16 * 1_048_576),
    verificationCodeTtlMs: intOption(options, 'verificationCodeTtlMs', 1000, 86_400_000),
    verificationCodeAttempts: intOption(options, 'verificationCodeAttempts', 1, 100),
    authExpiringNoticeMs: intOption(options, 'authExpiringNoticeMs', 0, 299_000),
    ...resolveAgentOptions(options),
    wsAcks: options.wsAcks ?? true,
    wsAck: { ...DEFAULT_DELIVERY_ENGINE_OPTIONS.wsAck, ...options.wsAck },
    webauthn: {
      rpId: options.webauthn?.rpId ?? 'localhost',
      rpName: options.webauthn?.rpName ?? 'Agent Messaging (reference server)',
      origins,
    },
  };
}

function resolveAgentOptions(options: ReferenceServerOptions) {
  return {
    agentTokenBcryptCost: intOption(options, 'agentTokenBcryptCost', 4, 15),
    maxAgentsPerUser: intOption(options, 'maxAgentsPerUser', 1, 100_000),
    maxMessageBodyBytes: intOption(options, 'maxMessageBodyBytes', 65_536, 64 * 1_048_576),
    maxFileBytes: intOption(options, 'maxFileBytes', 1024, 1024 * 1_048_576),
    webhookTimeoutMs: intOption(options, 'webhookTimeoutMs', 1, 600_000),
  };
}
