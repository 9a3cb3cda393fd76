/**
 * `ams manifest validate|push FILE`: check a capability manifest as the
 * service will (size, then fields), and propose it for the agent.
 *
 * @module
 */
import { runGroup } from '../command.js';
import type { CliIo } from '../io.js';

/** Help text of `ams manifest`. */
export const MANIFEST_HELP = `Usage: ams manifest <command> [options] FILE

Commands:
  validate  Check a capability manifest (size and fields) without sending it
  push      Propose the manifest to the agent's owner (agent token)

Run 'ams manifest <command> --help' for the options of each.
`;

/** Runs `ams manifest …`. */
export function runManifest(argv: readonly string[], io: CliIo): Promise<number> {
  return runGroup(
    'manifest',
    MANIFEST_HELP,
    {
      validate: async (a, i) => (await import('./manifest-file.js')).runManifestValidate(a, i),
      push: async (a, i) => (await import('./manifest-file.js')).runManifestPush(a, i),
    },
    argv,
    io,
  );
}
