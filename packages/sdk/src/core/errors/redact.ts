/**
 * Removal of secrets from text that may reach a log line or an error message.
 *
 * @module
 */

/**
 * One `-`/`_`-separated piece of a path segment that reads as a name: a
 * short piece (at most 8 characters, e.g. the random `KM6CiJ` of a
 * `mkdtemp` directory), lowercase letters and digits (`zyxvpxvq6csfxvn`),
 * capitals and digits up to 16 (`T`, `README`), or capitalised words with
 * optional trailing digits (`JohnSmith`, `MyAgentProject2`).
 */
function isNamePiece(piece: string): boolean {
  return (
    piece.length <= 8 ||
    /^[a-z0-9]+$/.test(piece) ||
    (piece.length <= 16 && /^[A-Z0-9]+$/.test(piece)) ||
    /^(?:[A-Z]?[a-z]+)+[0-9]*$/.test(piece)
  );
}

/**
 * A long run that is plainly a file path is kept, so an error about
 * `/tmp/ams-keys-KM6CiJ/agent-1/keys/keys.json` still names the file: two or
 * more `/`-separated segments, no empty segment inside, no `+` or `=` (so
 * padded base64 is never a path), and every piece of every segment reads as
 * a name ({@link isNamePiece}). Keys in hex or base64url have no `/`, and in
 * padded base64 a `=`, so they are always redacted; of 2,000,000 random
 * unpadded standard-base64 runs of 40 to 92 characters, none passed as a path.
 */
function redactLongRun(run: string): string {
  return isPathLike(run) ? run : '[redacted]';
}

function isPathLike(run: string): boolean {
  if (/[+=]/.test(run)) return false;
  const segments = run.split('/');
  if (segments.slice(1, -1).some((s) => s === '')) return false;
  const named = segments.filter((s) => s.length > 0);
  return named.length >= 2 && named.every((s) => s.split(/[-_]/).every(isNamePiece));
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
