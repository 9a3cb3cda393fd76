import pkg from '../../package.json' with { type: 'json' };

import type { Command } from './command.js';
import { takeEnvFile } from './env-file.js';
import type { CliIo } from './io.js';

export type { CliIo } from './io.js';

// Commands load on demand so `ams --help` stays instant.
const COMMANDS: Readonly<Record<string, Command>> = {
  serve: async (argv, io) => (await import('./commands/serve.js')).runServe(argv, io),
  dev: async (argv, io) => (await import('./commands/dev.js')).runDev(argv, io),
  keygen: async (argv, io) => (await import('./commands/keygen.js')).runKeygen(argv, io),
  keys: async (argv, io) => (await import('./commands/keys.js')).runKeys(argv, io),
  webhook: async (argv, io) => (await import('./commands/webhook.js')).runWebhook(argv, io),
  logs: async (argv, io) => (await import('./commands/logs.js')).runLogs(argv, io),
  token: async (argv, io) => (await import('./commands/token.js')).runToken(argv, io),
  manifest: async (argv, io) => (await import('./commands/manifest.js')).runManifest(argv, io),
  mcp: async (argv, io) => (await import('./commands/mcp.js')).runMcp(argv, io),
};

const HELP = `ams ${pkg.version} — tools for agent-messaging-sdk

Usage: ams [--env-file PATH] <command> [options]

Options:
  --env-file PATH Read AMS_* variables from this file (default: .env in the
                  current directory, when it exists; the environment wins)
  -h, --help      Show this help
  -v, --version   Print the version

Commands:
  serve           Run the reference server in the foreground (ams serve --help)
  dev bootstrap   Create a user and an agent on a dev server; print the env lines
  dev send        Send one message to the agent as its owner; print the reply
  dev chat        Talk to the agent as its owner, line by line
  dev devices     List (or --remove) the owner's devices
  keygen          Create an agent key store; print the public key fingerprints
  keys init       Create (or load) an agent's keys and register them (deploy step)
  webhook sign    Sign a test delivery and POST it to a local receiver
  webhook verify  Say precisely why a captured delivery is (not) valid
  logs            Print (or --follow) an agent's webhook delivery log
  token rotate    Regenerate an agent token (owner login)
  token revoke    Delete an agent token (owner login)
  manifest validate  Check a capability manifest (size and fields)
  manifest push   Propose a capability manifest to the agent's owner
  mcp             Serve MCP tools over stdio that reach the agent's owner

Run 'ams <command> --help' for the options of each.
Exit status: 0 success, 1 failure, 2 usage error.
`;

/**
 * Runs the CLI with `argv` (without the node and script paths) and resolves
 * with the exit code.
 */
export async function runCli(argv: readonly string[], cliIo: CliIo = process): Promise<number> {
  const taken = takeEnvFile(argv, cliIo);
  if (!taken.ok) {
    cliIo.stderr.write(`ams: ${taken.message}. Run 'ams --help'.\n`);
    return 2;
  }
  const io = taken.io;
  const [first, ...rest] = taken.argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    io.stdout.write(HELP);
    return 0;
  }
  if (first === '-v' || first === '--version') {
    io.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  if (command !== undefined) return command(rest, io);
  io.stderr.write(`ams: unknown command '${first}'. Run 'ams --help'.\n`);
  return 2;
}
