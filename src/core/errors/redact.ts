/**
 * Removal of secrets from text that may reach a log line or an error message.
 *
 * @module
 */

const PATTERNS: readonly [RegExp, string][] = [
  // Agent tokens: hsk_ + base62.
  [/hsk_[A-Za-z0-9]{8,}/g, 'hsk_[redacted]'],
  // JWTs: three base64url segments, the first starting with eyJ.
  [/eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, '[redacted-jwt]'],
  // Bearer credentials of any other shape.
  [/(Bearer\s+)[^\s"',;]+/gi, '$1[redacted]'],
  // refresh_token=... cookie values.
  [/(refresh_token=)[^;\s"']+/gi, '$1[redacted]'],
  // Long base64 / base64url / hex runs: keys, ciphertext, signatures.
  [/[A-Za-z0-9+/_-]{40,}={0,2}/g, '[redacted]'],
];

/**
 * Returns `text` with anything that looks like a token, key, signature or
 * ciphertext replaced by a placeholder. Used on every message the SDK builds
 * from data it did not write itself.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [re, replacement] of PATTERNS) out = out.replace(re, replacement);
  return out;
}
