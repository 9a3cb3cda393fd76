/**
 * Removal of secrets from text that may reach a log line or an error message.
 *
 * @module
 */

/**
 * A long run that is plainly a file path (two or more `/`-separated segments,
 * each lowercase letters, digits, `_` or `-`) is kept, so an error about
 * `/home/me/agent/keys/keys.json` still names the file. Random base64 of a key
 * practically never has that shape.
 */
function redactLongRun(run: string): string {
  const segments = run.split('/').filter((s) => s.length > 0);
  const pathLike = segments.length >= 2 && segments.every((s) => /^[a-z0-9_-]+$/.test(s) && /[a-z]/.test(s));
  return pathLike ? run : '[redacted]';
}

const PATTERNS: readonly [RegExp, string | ((match: string) => string)][] = [
  // Agent tokens: hsk_ + base62.
  [/hsk_[A-Za-z0-9]{8,}/g, 'hsk_[redacted]'],
  // JWTs: three base64url segments, the first starting with eyJ.
  [/eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, '[redacted-jwt]'],
  // Bearer credentials of any other shape.
  [/(Bearer\s+)[^\s"',;]+/gi, '$1[redacted]'],
  // refresh_token=... cookie values.
  [/(refresh_token=)[^;\s"']+/gi, '$1[redacted]'],
  // Long base64 / base64url / hex runs: keys, ciphertext, signatures.
  [/[A-Za-z0-9+/_-]{40,}={0,2}/g, redactLongRun],
];

/**
 * Returns `text` with anything that looks like a token, key, signature or
 * ciphertext replaced by a placeholder. Used on every message the SDK builds
 * from data it did not write itself.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [re, replacement] of PATTERNS) {
    out = typeof replacement === 'string' ? out.replace(re, replacement) : out.replace(re, replacement);
  }
  return out;
}

/** Nesting depth below which {@link redactParams} replaces values with a placeholder. */
const MAX_PARAM_DEPTH = 6;

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_PARAM_DEPTH) return '[truncated]';
  if (Array.isArray(value)) return value.map((v: unknown) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty, not assignment: a `__proto__` key must stay a plain key.
    Object.defineProperty(out, redactSecrets(k), {
      value: redactValue(v, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * A copy of error `params` with {@link redactSecrets} applied to every string
 * (keys included), so `toJSON()` and logs of an error never carry a token,
 * key or ciphertext that reached its params. Numbers, booleans and null are
 * kept; nesting deeper than 6 levels is cut off.
 */
export function redactParams(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return redactValue(params, 0) as Record<string, unknown>;
}
