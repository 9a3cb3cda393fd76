/**
 * `NAME=value` lines that both a POSIX shell (`eval`, `source`) and dotenv
 * files read the same way.
 *
 * @module
 */

const PLAIN = /^[A-Za-z0-9_./:@+=,%-]*$/;

/** Quotes `value` for a shell and a dotenv file when it has characters outside a safe set. */
export function quoteEnvValue(value: string): string {
  return PLAIN.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Formats variables as `NAME=value` lines, skipping undefined values.
 *
 * @example
 * ```ts
 * formatEnvLines({ AMS_BASE_URL: 'http://127.0.0.1:8080', PORT: '3000' });
 * // 'AMS_BASE_URL=http://127.0.0.1:8080\nPORT=3000\n'
 * ```
 */
export function formatEnvLines(vars: Readonly<Record<string, string | undefined>>): string {
  let out = '';
  for (const [name, value] of Object.entries(vars)) {
    if (value !== undefined) out += `${name}=${quoteEnvValue(value)}\n`;
  }
  return out;
}
