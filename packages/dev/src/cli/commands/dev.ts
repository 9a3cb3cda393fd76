/**
 * `ams dev …`: bootstrap, and being the agent's owner from a terminal
 * (`send`, `chat`, `devices`).
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
  send TEXT   Send one message to the agent as its owner and print the reply
  chat        Talk to the agent line by line (stdin), printing what it sends
  devices     List the owner's devices, or remove one (--remove ID)

Run 'ams dev <command> --help' for its options.
`;

/** Runs `ams dev …`. */
export function runDev(argv: readonly string[], io: CliIo): Promise<number> {
  return runGroup(
    'dev',
    DEV_HELP,
    {
      bootstrap: async (a, i) => (await import('./dev-bootstrap.js')).runDevBootstrap(a, i),
      send: async (a, i) => (await import('./dev-send.js')).runDevSend(a, i),
      chat: async (a, i) => (await import('./dev-chat.js')).runDevChat(a, i),
      devices: async (a, i) => (await import('./dev-devices.js')).runDevDevices(a, i),
    },
    argv,
    io,
  );
}
