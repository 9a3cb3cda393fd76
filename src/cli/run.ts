import pkg from '../../package.json' with { type: 'json' };

/** Output streams of the CLI, injectable for tests. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** A subcommand: its arguments (after the name) and the streams; resolves with the exit code. */
type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

// Commands load on demand so `ams --help` stays instant.
const COMMANDS: Readonly<Record<string, Command>> = {
  serve: async (argv, io) => (await import('./commands/serve.js')).runServe(argv, io),
};

const HELP = `ams ${pkg.version} — tools for agent-messaging-sdk

Usage: ams <command> [options]

Options:
  -h, --help      Show this help
  -v, --version   Print the version

Commands:
  serve           Run the reference server in the foreground (ams serve --help)
`;

/**
 * Runs the CLI with `argv` (without the node and script paths) and resolves
 * with the exit code.
 */
export async function runCli(argv: readonly string[], io: CliIo = process): Promise<number> {
  const [first, ...rest] = argv;
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
