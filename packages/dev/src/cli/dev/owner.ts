/**
 * Signs the agent's owner in for `ams dev send|chat|devices`, from what
 * `ams dev bootstrap` printed (`AMS_BASE_URL`, `AMS_AGENT_ID`,
 * `AMS_OWNER_EMAIL`, `AMS_OWNER_PASSWORD`, `AMS_KEY_DIR`), always as the same
 * device (its id kept in the {@link DevOwnerState}), with the owner's keys set
 * up on first use and unlocked afterwards.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { isServiceError, isTransportError, UserClient } from 'agent-messaging-sdk';
import { envValue, type CliIo } from '../io.js';
import { baseUrlOf } from '../rest.js';
import { DEFAULT_KEY_DIR } from '../commands/keygen.js';
import { DEV_TURNSTILE_TOKEN } from '../commands/token.js';
import { devStatePath, loadDevState, saveDevState } from './state.js';

/** Where the owner's session comes from: options given on the command line. */
export interface OwnerArgs {
  readonly baseUrl?: string | undefined;
  readonly keyDir?: string | undefined;
}

/** A signed-in owner with keys in memory. */
export interface OwnerSession {
  readonly client: UserClient;
  readonly baseUrl: string;
  readonly agentId: string;
  /** The state file (device id, protection password). */
  readonly statePath: string;
}

/** A failure with a one-line reason meant for the person at the terminal. */
export class DevFailure extends Error {
  override readonly name = 'DevFailure';
}

function fromBootstrap(io: CliIo, name: string): string {
  const value = envValue(io, name);
  if (value === undefined) {
    throw new DevFailure(
      `${name} is not set: run 'ams dev bootstrap' first and load its output (e.g. into .env)`,
    );
  }
  return value;
}

/** Turns "the server is not there" and a full device list into a reason that says what to do. */
export function explainOwnerError(err: unknown, baseUrl: string): unknown {
  if (isTransportError(err) && err.code === 'TRANSPORT_NETWORK') {
    return new DevFailure(`cannot reach the server at ${baseUrl}: is 'ams serve --dev' running there?`);
  }
  if (isServiceError(err, 'AGENT_NOT_REGISTERED')) {
    return new DevFailure(
      `the agent has not started yet (it registers its keys when it connects): start the bot first`,
    );
  }
  if (isServiceError(err, 'DEVICE_LIMIT_EXCEEDED')) {
    return new DevFailure(
      `this account already has the most devices it may have: 'ams dev devices' lists them and ` +
        `'ams dev devices --remove ID' frees one (DELETE /users/me/devices/:id)`,
    );
  }
  return err;
}

/**
 * Signs the owner in as the CLI's device; on first use generates the
 * owner's keys and backs them up under a random protection password kept in
 * the state file.
 *
 * @throws {@link DevFailure} when there is no bootstrap output in the
 *   environment, the server is unreachable, or the device list is full.
 */
export async function signInOwner(io: CliIo, args: OwnerArgs): Promise<OwnerSession> {
  const email = fromBootstrap(io, 'AMS_OWNER_EMAIL');
  const password = fromBootstrap(io, 'AMS_OWNER_PASSWORD');
  const agentId = fromBootstrap(io, 'AMS_AGENT_ID');
  const baseUrl = baseUrlOf(io, args.baseUrl);
  const keyDir = resolve(args.keyDir ?? envValue(io, 'AMS_KEY_DIR') ?? DEFAULT_KEY_DIR);
  const statePath = devStatePath(keyDir, baseUrl, email);
  const state = await loadDevState(statePath);
  const who = { baseUrl, email };
  if (state.fresh) await saveDevState(statePath, who, state);
  const client = new UserClient({ baseUrl, deviceId: state.deviceId, retry: { maxAttempts: 2 } });
  try {
    await client.login({
      email,
      accountPassword: password,
      turnstileToken: envValue(io, 'AMS_TURNSTILE_TOKEN') ?? DEV_TURNSTILE_TOKEN,
    });
    if (state.protectionPassword === undefined) {
      const protectionPassword = randomBytes(24).toString('base64url');
      await client.setUpKeys(protectionPassword);
      await saveDevState(statePath, who, { deviceId: state.deviceId, protectionPassword });
    } else {
      await client.unlockKeys(state.protectionPassword);
    }
  } catch (err) {
    await client.signOut().catch(() => {});
    throw explainOwnerError(err, baseUrl);
  }
  return { client, baseUrl, agentId, statePath };
}

/** The conversation between the owner and the agent: an established one, else a new one. */
export async function conversationWithAgent(session: OwnerSession): Promise<string> {
  const all = await session.client.conversations();
  const open = all.find((c) => c.agentId === session.agentId && c.state === 'established');
  if (open !== undefined) return open.conversationId;
  return (await session.client.addAgent(session.agentId)).conversationId;
}
