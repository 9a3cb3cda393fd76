/**
 * The parts a test world is built from: a signed-up user, a webhook
 * receiver on 127.0.0.1, and a real-time poll with a time limit.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UserClient } from 'agent-messaging-sdk';
import { systemClock, type Clock } from 'agent-messaging-sdk/protocol';
import type { ReferenceServer } from '../server/index.js';
import { DEFAULT_TEST_WORLD_OPTIONS } from './test-world-options.js';

/** An error of the test world: a wait that ran out of time, or a failed assertion. */
export class TestWorldError extends Error {
  override readonly name = 'TestWorldError';
}

/** Test-only passwords of the simulated user (never real secrets). */
const ACCOUNT_PASSWORD = 'world-account-password';
const PROTECTION_PASSWORD = 'world-protection-password';

/** Where and on which clock a world's clients run. */
export interface ClientSetting {
  /** The service's address (the server's, or the relay's). */
  readonly baseUrl: string;
  readonly clock: Clock;
  /** The user client's `readReceipts` option. @defaultValue `false` */
  readonly readReceipts?: boolean;
}

/** Signs a new user up through the real flow: send-code, register, keys, key backup. */
export async function signUpUser(
  server: ReferenceServer,
  displayName: string,
  setting: ClientSetting = { baseUrl: server.url, clock: systemClock },
): Promise<UserClient> {
  const client = new UserClient({
    baseUrl: setting.baseUrl,
    clock: setting.clock,
    keyBackup: DEFAULT_TEST_WORLD_OPTIONS.keyBackup,
    ...(setting.readReceipts === undefined ? {} : { readReceipts: setting.readReceipts }),
  });
  const email = `user-${randomUUID()}@example.test`;
  await client.sendCode({ email, scene: 'register', turnstileToken: 'test-world' });
  const code = server.control.latestCode(email, 'register');
  if (code === undefined) throw new TestWorldError('The reference server sent no verification code.');
  await client.register({
    email,
    code,
    accountPassword: ACCOUNT_PASSWORD,
    displayName,
    deviceLocale: 'en-GB',
    turnstileToken: 'test-world',
    protectionPassword: PROTECTION_PASSWORD,
  });
  emails.set(client, email);
  return client;
}

/** The e-mail address each signed-up client registered with (for another device's sign-in). */
const emails = new WeakMap<UserClient, string>();

/** Signs a new device of `client`'s account in (account password), keys still locked. */
export async function signInDevice(
  client: UserClient,
  deviceName: string,
  setting: ClientSetting,
): Promise<UserClient> {
  const email = emails.get(client);
  if (email === undefined) throw new TestWorldError('This user was not signed up by the world.');
  const device = new UserClient({
    baseUrl: setting.baseUrl,
    clock: setting.clock,
    deviceName,
    keyBackup: DEFAULT_TEST_WORLD_OPTIONS.keyBackup,
  });
  await device.login({ email, accountPassword: ACCOUNT_PASSWORD, turnstileToken: 'test-world' });
  return device;
}

/** The protection password of every world user's key backup (test-only). */
export const WORLD_PROTECTION_PASSWORD = PROTECTION_PASSWORD;

/** A node:http listener, e.g. `agent.webhookHandler()`. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** An HTTP server on 127.0.0.1 (free port) that hands requests to a handler set later. */
export interface WebhookHost {
  readonly url: string;
  use(listener: NodeListener): void;
  close(): Promise<void>;
}

/** Starts a {@link WebhookHost}; until a handler is set it answers 503 (the service retries). */
export async function startWebhookHost(): Promise<WebhookHost> {
  let listener: NodeListener | undefined;
  const http = createServer((req, res) => {
    if (listener === undefined) {
      res.writeHead(503).end();
      return;
    }
    void listener(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    use: (next) => void (listener = next),
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `check` until it returns a value other than undefined, on real time.
 *
 * @throws {@link TestWorldError} after `timeoutMs`, naming `what`.
 */
export async function pollUntil<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs: number,
  intervalMs = 5,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline)
      throw new TestWorldError(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await pause(intervalMs);
  }
}

/**
 * The clock the project's own chaos and console helpers give extra clients:
 * the service's virtual `now()`, every timer on real time (rate-window waits
 * included, unlike the kit's `serverClock`). Not exported by the kit.
 */
export function worldClock(server: ReferenceServer): Clock {
  if (server.virtualClock === undefined) return systemClock;
  return {
    now: () => server.clock.now(),
    setTimeout: (fn, ms, options) => systemClock.setTimeout(fn, ms, options),
    clearTimeout: (handle) => systemClock.clearTimeout(handle),
  };
}
