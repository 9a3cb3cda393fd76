/**
 * The env file the console hands over for a new or regenerated agent token:
 * the `NAME=value` lines `ams dev bootstrap` prints (same quoting as the
 * CLI's `formatEnvLines`), and a file name made safe from the agent's name.
 * The console may not import the CLI, hence this small copy.
 *
 * @module
 */

const PLAIN = /^[A-Za-z0-9_./:@+=,%-]*$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Where the examples keep the agent's keys (`ams dev bootstrap`'s default, relative). */
export const DEFAULT_AGENT_KEY_DIR = './.ams-keys';

/** What an agent's env file holds. */
export interface AgentEnv {
  /** The server's origin, e.g. `http://127.0.0.1:40123`. */
  readonly baseUrl: string;
  readonly agentId: string;
  readonly token: string;
  /** @defaultValue {@link DEFAULT_AGENT_KEY_DIR} */
  readonly keyDir?: string;
}

/**
 * Quotes `value` for a shell and a dotenv file when it has characters outside
 * a safe set (as the CLI does).
 *
 * @throws Error when `value` has a control character (a line break would start a new variable).
 */
export function quoteEnvValue(value: string): string {
  if (CONTROL.test(value)) throw new Error('An env value cannot hold a control character or line break.');
  return PLAIN.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The env file of an agent: `AMS_BASE_URL`, `AMS_AGENT_ID`, `AMS_AGENT_TOKEN`
 * and `AMS_KEY_DIR`, one per line, for `node --env-file=…`.
 *
 * @example
 * ```ts
 * agentEnvFile({ baseUrl: 'http://127.0.0.1:8080', agentId: 'agt_1', token: 'hsk_…' });
 * // 'AMS_BASE_URL=http://127.0.0.1:8080\nAMS_AGENT_ID=agt_1\nAMS_AGENT_TOKEN=hsk_…\nAMS_KEY_DIR=./.ams-keys\n'
 * ```
 * @throws Error when a value has a control character.
 */
export function agentEnvFile(env: AgentEnv): string {
  const vars: [string, string][] = [
    ['AMS_BASE_URL', env.baseUrl],
    ['AMS_AGENT_ID', env.agentId],
    ['AMS_AGENT_TOKEN', env.token],
    ['AMS_KEY_DIR', env.keyDir ?? DEFAULT_AGENT_KEY_DIR],
  ];
  return vars.map(([name, value]) => `${name}=${quoteEnvValue(value)}\n`).join('');
}

/** Longest name part of an env file name. */
const MAX_SLUG = 40;

/**
 * `ams-agent-<name>.env`, the name reduced to letters, digits, `_` and `-`
 * (anything else becomes `-`), at most 40 characters; `agent` when nothing is left.
 */
export function envFileName(agentName: string): string {
  const slug = agentName
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/, '');
  return `ams-agent-${slug === '' ? 'agent' : slug.toLowerCase()}.env`;
}
