/**
 * `ams --env-file <path>`: the CLI reads an env file itself, so
 * `npx ams dev send "hello"` works where `ams dev bootstrap > .env` wrote
 * the variables (no `node --env-file=.env node_modules/.bin/ams`). Without
 * the option, `.env` in the working directory is read when it exists.
 * Variables already in the environment win, as with `node --env-file`.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { cwdOf, envOf, type CliIo } from './io.js';

/** The env file read when `--env-file` is not given (if it exists). */
export const DEFAULT_ENV_FILE = '.env';

/** Outcome of {@link takeEnvFile}: the arguments left, or a usage error. */
export type EnvFileOutcome =
  | { readonly ok: true; readonly argv: readonly string[]; readonly io: CliIo }
  | { readonly ok: false; readonly message: string };

/**
 * Takes the leading `--env-file <path>` (or `--env-file=<path>`) options off
 * `argv` and returns an `io` whose environment holds the file's variables
 * under the existing ones. A named file must exist; the default one may not.
 */
export function takeEnvFile(argv: readonly string[], io: CliIo): EnvFileOutcome {
  const files: string[] = [];
  let rest = argv;
  for (;;) {
    const [first, second] = rest;
    if (first === '--env-file') {
      if (second === undefined || second === '') return { ok: false, message: '--env-file needs a path' };
      files.push(second);
      rest = rest.slice(2);
    } else if (first?.startsWith('--env-file=') === true) {
      const path = first.slice('--env-file='.length);
      if (path === '') return { ok: false, message: '--env-file needs a path' };
      files.push(path);
      rest = rest.slice(1);
    } else break;
  }
  const named = files.length > 0;
  const vars: Record<string, string> = {};
  for (const file of named ? files : [DEFAULT_ENV_FILE]) {
    let text: string;
    try {
      text = readFileSync(resolve(cwdOf(io), file), 'utf8');
    } catch (err) {
      if (!named && (err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return { ok: false, message: `cannot read the env file ${file}: ${(err as Error).message}` };
    }
    Object.assign(vars, parseEnv(text));
  }
  if (Object.keys(vars).length === 0) return { ok: true, argv: rest, io };
  const env: Record<string, string | undefined> = { ...vars };
  for (const [name, value] of Object.entries(envOf(io))) if (value !== undefined) env[name] = value;
  return { ok: true, argv: rest, io: { ...io, env } };
}
