/**
 * Environment for the examples: the variables `ams dev bootstrap` prints.
 * A missing one ends the process with one line naming it (exit 1).
 */
import { join } from 'node:path';
import { FileKeyStore } from 'agent-messaging-sdk/crypto';

/** The value of `name`, or exit 1 with a one-line message naming it. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    console.error(`missing environment variable ${name} (see 'ams dev bootstrap')`);
    process.exit(1);
  }
  return value;
}

/** What every example needs to start an agent. */
export function agentEnv(): { baseUrl: string; agentId: string; token: string; keyStore: FileKeyStore } {
  const baseUrl = requireEnv('AMS_BASE_URL');
  const agentId = requireEnv('AMS_AGENT_ID');
  const token = requireEnv('AMS_AGENT_TOKEN');
  const keyStore = new FileKeyStore({ directory: join(requireEnv('AMS_KEY_DIR'), agentId) });
  return { baseUrl, agentId, token, keyStore };
}

/** `PORT` as a number (exit 1 when missing or not a port). */
export function requirePort(): number {
  const port = Number(requireEnv('PORT'));
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error('invalid environment variable PORT (expected 0–65535)');
    process.exit(1);
  }
  return port;
}

/** Runs `close` on SIGINT/SIGTERM, then exits (0, or 1 if closing failed). */
export function closeOnSignal(close: () => Promise<unknown>): void {
  const stop = (): void => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
