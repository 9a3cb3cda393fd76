/**
 * Argument parsing for every `ams` command: node:util `parseArgs` in strict
 * mode, with its errors turned into {@link UsageError} (exit code 2), plus
 * small checked readers for numbers, URLs and times.
 *
 * @module
 */
import { parseArgs } from 'node:util';

/** Exit codes of every command. */
export const EXIT = Object.freeze({ ok: 0, failure: 1, usage: 2 } as const);

/** Bad command-line input: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** One option of a command (the shape `parseArgs` takes). */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
}

/** Parsed values: strings, booleans or string lists, by option name. */
export type ParsedValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * Parses `argv` against `options` (plus `-h/--help`). Positionals are refused
 * unless `positionals` allows some.
 *
 * @throws {@link UsageError} for unknown options, missing values, or extra positionals.
 */
export function parseCommandArgs(
  argv: readonly string[],
  options: Readonly<Record<string, OptionSpec>>,
  positionals = 0,
): { values: ParsedValues; positionals: string[]; help: boolean } {
  let parsed: { values: ParsedValues; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: positionals > 0,
    }) as { values: ParsedValues; positionals: string[] };
  } catch (err) {
    // parseArgs messages name the option and never echo option values.
    throw new UsageError(err instanceof Error ? err.message.replace(/\.?\s*$/, '') : String(err));
  }
  const help = parsed.values['help'] === true;
  if (!help && parsed.positionals.length > positionals) {
    throw new UsageError(`unexpected argument '${parsed.positionals[positionals]}'`);
  }
  return { values: parsed.values, positionals: parsed.positionals, help };
}

/** A string option's value, or `undefined`. */
export function stringOf(values: ParsedValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Every value of a repeatable string option. */
export function stringsOf(values: ParsedValues, name: string): string[] {
  const v = values[name];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return typeof v === 'string' ? [v] : [];
}

/** A required string option (or its environment fallback). @throws {@link UsageError} */
export function required(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`${what} is required`);
  return value;
}

/**
 * An integer option within `[min, max]`.
 *
 * @throws {@link UsageError} naming the option when the text is not such an integer.
 */
export function intOf(
  text: string | undefined,
  option: string,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${option} needs a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

/**
 * An absolute http(s) URL without credentials.
 *
 * @throws {@link UsageError} naming the option.
 */
export function httpUrlOf(text: string, option: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${option} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${option} must be an absolute http(s) URL`);
  }
  if (url.username !== '' || url.password !== '')
    throw new UsageError(`${option} must not carry credentials`);
  return url;
}
