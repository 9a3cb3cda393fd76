/**
 * `ams dev bootstrap` keeps secrets out of git: the env file it writes holds
 * the agent token (and owner password), the key directory the agent's
 * private keys. When the working directory has a `.gitignore`, the missing
 * entries are appended to it; otherwise the command says to add them.
 *
 * @module
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/** The env file `ams dev bootstrap > .env` writes, as the docs print it. */
export const BOOTSTRAP_ENV_FILE = '.env';

/** The `.gitignore` entries for the env file and `keyDir` (absolute); a key dir outside `cwd` needs none. */
export function secretEntries(cwd: string, keyDir: string): string[] {
  const rel = relative(cwd, keyDir);
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  return [BOOTSTRAP_ENV_FILE, ...(inside ? [`${rel.split(sep).join('/')}/`] : [])];
}

/** Whether a `.gitignore` line already covers `entry` (the same name, with or without a leading or trailing slash). */
function covered(lines: readonly string[], entry: string): boolean {
  const bare = entry.replace(/^\/|\/$/g, '');
  return lines.some((l) => l.trim().replace(/^\/|\/$/g, '') === bare);
}

/**
 * Appends what is missing to `cwd/.gitignore` when it exists and returns the
 * one line to print (stderr): what was added, or what to keep out of git.
 */
export function keepSecretsOutOfGit(cwd: string, keyDir: string): string | undefined {
  const entries = secretEntries(cwd, keyDir);
  const path = join(cwd, '.gitignore');
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    return `keep ${entries.join(' and ')} out of git (the token and the private keys): add them to .gitignore`;
  }
  const missing = entries.filter((e) => !covered(text.split(/\r?\n/), e));
  if (missing.length === 0) return undefined;
  const lead = text === '' || text.endsWith('\n') ? '' : '\n';
  appendFileSync(
    path,
    `${lead}# ams dev bootstrap: the agent token and private keys\n${missing.join('\n')}\n`,
    {
      mode: 0o644,
    },
  );
  return `added ${missing.join(' and ')} to .gitignore (the token and the private keys stay out of git)`;
}
