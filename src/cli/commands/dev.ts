/**
 * `ams dev bootstrap`.
 *
 * @module
 */
import { runGroup } from '../command.js';
import type { CliIo } from '../io.js';

/** Help text of `ams dev`. */
export const DEV_HELP = `Usage: ams dev <command> [options]

Commands:
  bootstrap   Create a user and an agent on a dev-mode reference server and
              print the environment an example needs

Run 'ams dev <command> --help' for its options.
`;

/** Runs `ams dev …`. */
export function runDev(argv: readonly string[], io: CliIo): Promise<number> {
  return runGroup(
    'dev',
    DEV_HELP,
    { bootstrap: async (a, i) => (await import('./dev-bootstrap.js')).runDevBootstrap(a, i) },
    argv,
    io,
  );
}
