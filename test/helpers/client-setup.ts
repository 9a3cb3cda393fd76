/**
 * Helpers for the owner client and agent runtime tests: a reference server,
 * registered users (through the real sign-up flow), agents with their keys
 * ensured, and waiting for client events. Waits use a real-time failsafe
 * only (no timing assertions).
 */
import { createAgentApi, type AgentApi } from '../../packages/sdk/src/agent/api.js';
import { createKeyDirectory, type KeyDirectory } from '../../packages/sdk/src/messaging/key-directory.js';
import { ensureAgentKeys, type KeyLifecycleEvent } from '../../packages/sdk/src/agent/key-lifecycle.js';
import { createMessageSender, type MessageSender } from '../../packages/sdk/src/messaging/sender.js';
import { UserClient, type UserClientOptions } from '../../packages/sdk/src/client/index.js';
import type { Clock } from '../../packages/sdk/src/core/clock.js';
import type { LogFields, Logger } from '../../packages/sdk/src/core/logger.js';
import {
  MemoryKeyStore,
  openAsync,
  type KeyRing,
  type KeyStore,
  type OpenedEnvelope,
} from '../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../packages/dev/src/testing/index.js';
import { createRestClient } from '../../packages/sdk/src/transport/rest/client.js';
import { uniqueEmail } from './server-http.js';

/** Cheap Argon2id for tests (the production floor is refused by default; these lower it). */
export const CHEAP_BACKUP = {
  params: { m: 64, t: 1, p: 1 },
  minParams: { m: 8, t: 1, p: 1 },
} as const;

/** Test passwords (never real secrets). */
export const ACCOUNT_PASSWORD = 'account-password-1';
export const PROTECTION_PASSWORD = 'protection-password-1';

/** A logger that records every line (to check what is, and is not, logged). */
export interface RecordingLogger extends Logger {
  readonly lines: { level: string; message: string; fields: LogFields | undefined }[];
  /** Every line as one string, for secret checks. */
  text(): string;
}

/** Creates a {@link RecordingLogger}. */
export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger['lines'] = [];
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, fields });
    };
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    text: () => lines.map((l) => `${l.level} ${l.message} ${JSON.stringify(l.fields ?? {})}`).join('\n'),
  };
}

/** A user client for `server` with cheap key backups. */
export function newUserClient(server: ReferenceServer, extra: Partial<UserClientOptions> = {}): UserClient {
  return new UserClient({ baseUrl: server.url, keyBackup: CHEAP_BACKUP, ...extra });
}

/** A user signed up through the real flow (send-code, register, keys, backup). */
export interface SignedUpUser {
  readonly client: UserClient;
  readonly email: string;
  readonly userId: string;
}

/** Signs a new user up with `client` (or a new one). */
export async function signUp(server: ReferenceServer, client = newUserClient(server)): Promise<SignedUpUser> {
  const email = uniqueEmail('owner');
  await client.sendCode({ email, scene: 'register', turnstileToken: 'pass' });
  const code = server.control.latestCode(email, 'register')!;
  const info = await client.register({
    email,
    code,
    accountPassword: ACCOUNT_PASSWORD,
    displayName: 'Ada',
    deviceLocale: 'en-GB',
    turnstileToken: 'pass',
    protectionPassword: PROTECTION_PASSWORD,
  });
  return { client, email, userId: info.userId };
}

/** An agent process as the tests run it: its API, key store and ring, a directory and a sender. */
export interface TestAgentRuntime {
  readonly agentId: string;
  token: string;
  api: AgentApi;
  readonly store: KeyStore;
  ring: KeyRing;
  directory: KeyDirectory;
  sender: MessageSender;
  readonly events: KeyLifecycleEvent[];
  readonly logger: RecordingLogger;
}

/** Starts (or restarts, with a new token) an agent process: API, keys ensured, sender. */
export async function startAgent(
  server: ReferenceServer,
  agentId: string,
  token: string,
  options: {
    store?: KeyStore;
    clock?: Clock;
    /** No client-side 5-per-second pacing (the caller paces on the server's virtual time). */
    unthrottled?: boolean;
  } = {},
): Promise<TestAgentRuntime> {
  const store =
    options.store ?? new MemoryKeyStore(options.clock === undefined ? {} : { clock: options.clock });
  const events: KeyLifecycleEvent[] = [];
  const logger = recordingLogger();
  const rest = options.unthrottled
    ? { rest: createRestClient({ baseUrl: server.url, credentials: token, rateLimits: false }) }
    : {};
  const api = createAgentApi({ baseUrl: server.url, agentId, token, ...rest });
  const ring = await ensureAgentKeys({
    api,
    store,
    logger,
    onEvent: (e) => events.push(e),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const directory = createKeyDirectory({ api });
  const runtime: TestAgentRuntime = {
    agentId,
    token,
    api,
    store,
    ring,
    directory,
    events,
    logger,
  } as TestAgentRuntime;
  runtime.sender = createMessageSender({
    api,
    agentId,
    keys: () => runtime.ring,
    directory,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return runtime;
}

/** Opens an envelope as the agent: its ring's candidates at `nowMs`, senders' keys from its directory. */
export function openAsAgent(agent: TestAgentRuntime, wire: string, nowMs: number): Promise<OpenedEnvelope> {
  return openAsync(wire, {
    recipientId: agent.agentId,
    keys: agent.ring.candidates(nowMs),
    senderKey: (id) => agent.directory.signingKey(id),
  });
}

/** Resolves with the next `event` of `emitter` (real-time failsafe 5 s). */
export function nextEvent<T extends unknown[] = unknown[]>(
  emitter: { once(event: never, listener: never): unknown },
  event: string,
  failsafeMs = 5_000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${event}" within ${failsafeMs} ms`)), failsafeMs);
    const listener = (...args: T): void => {
      clearTimeout(timer);
      resolve(args);
    };
    emitter.once(event as never, listener as never);
  });
}
