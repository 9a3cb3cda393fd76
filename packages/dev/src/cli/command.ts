/**
 * The shape every `ams` subcommand shares: parse the arguments, answer
 * `--help`, run, and turn a thrown error into a message and an exit code.
 *
 * @module
 */
import { parseCommandArgs, type OptionSpec, type ParsedValues } from './args.js';
import type { CliIo } from './io.js';
import { reportFailure } from './report.js';

/** A subcommand: its arguments (after its name) and the streams; resolves with the exit code. */
export type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/** What a subcommand is made of. */
export interface CommandSpec {
  /** Name as typed after `ams`, e.g. `webhook sign`. */
  readonly name: string;
  /** Text printed by `--help`. */
  readonly help: string;
  /** Options besides `-h/--help`. */
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Positional arguments allowed. @defaultValue `0` */
  readonly positionals?: number;
  /** Runs with parsed values; resolves with the exit code. Throws are reported by {@link runCommand}. */
  run(values: ParsedValues, io: CliIo, positionals: readonly string[]): Promise<number>;
}

/** Runs a subcommand spec: `--help`, parsing, and failures reported with the right exit code. */
export async function runCommand(spec: CommandSpec, argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const parsed = parseCommandArgs(argv, spec.options, spec.positionals ?? 0);
    if (parsed.help) {
      io.stdout.write(spec.help);
      return 0;
    }
    return await spec.run(parsed.values, io, parsed.positionals);
  } catch (err) {
    return reportFailure(io, spec.name, err);
  }
}

/**
 * Dispatches `ams <group> <sub> …` (e.g. `webhook sign`) to one of `subs`;
 * prints `help` for `--help` (exit 0); without a sub, or with an unknown one, exits 2.
 */
export async function runGroup(
  group: string,
  help: string,
  subs: Readonly<Record<string, Command>>,
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr.write(help);
    return 2;
  }
  if (first === '-h' || first === '--help' || first === 'help') {
    io.stdout.write(help);
    return 0;
  }
  const sub = Object.hasOwn(subs, first) ? subs[first] : undefined;
  if (sub !== undefined) return sub(rest, io);
  io.stderr.write(`ams ${group}: unknown command '${first}'. Run 'ams ${group} --help'.\n`);
  return 2;
}
