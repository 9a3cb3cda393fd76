/**
 * How a command ends when something fails: one line on stderr naming what
 * failed (the error code when the SDK or the service gave one, never a
 * secret), and the exit code: 2 for usage and configuration errors, 1 for
 * everything else.
 *
 * @module
 */
import { isAmsError, isConfigurationError, isServiceError } from 'agent-messaging-sdk';
import { redactSecrets } from 'agent-messaging-sdk/protocol';
import { EXIT, UsageError } from './args.js';
import type { CliIo } from './io.js';

/** One line describing `err`, secrets redacted. */
export function describeError(err: unknown): string {
  if (isServiceError(err)) {
    const status = err.status === undefined ? '' : `HTTP ${err.status} `;
    return `the service refused: ${status}${err.code}: ${err.message}`;
  }
  if (isAmsError(err)) return `${err.message} (${err.code})`;
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return redactSecrets(typeof code === 'string' ? `${err.message} (${code})` : err.message);
  }
  return redactSecrets(String(err));
}

/**
 * Reports `err` for the command `name` (e.g. `webhook sign`) and returns the exit code.
 */
export function reportFailure(io: CliIo, name: string, err: unknown): number {
  if (err instanceof UsageError) {
    io.stderr.write(`ams ${name}: ${err.message}. Run 'ams ${name} --help'.\n`);
    return EXIT.usage;
  }
  io.stderr.write(`ams ${name}: ${describeError(err)}\n`);
  return isConfigurationError(err) ? EXIT.usage : EXIT.failure;
}
