import pkg from '../../package.json' with { type: 'json' };

/** Output streams of the CLI, injectable for tests. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const HELP = `ams ${pkg.version} — tools for agent-messaging-sdk

Usage: ams <command> [options]

Options:
  -h, --help      Show this help
  -v, --version   Print the version

Commands arrive with the reference server and the developer tools.
`;

/**
 * Runs the CLI with `argv` (without the node and script paths) and resolves
 * with the exit code.
 */
export async function runCli(argv: readonly string[], io: CliIo = process): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    io.stdout.write(HELP);
    return 0;
  }
  if (first === '-v' || first === '--version') {
    io.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  io.stderr.write(`ams: unknown command '${first}'. Run 'ams --help'.\n`);
  return 2;
}
