/**
 * The agent token: `hsk_` followed by 40 base62 random characters. It is shown
 * once at creation; the service stores only a bcrypt hash (cost 10).
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { ConfigurationError } from '../errors/index.js';

/** Prefix of every agent token. */
export const AGENT_TOKEN_PREFIX = 'hsk_';
/** Number of base62 characters after the prefix. */
export const AGENT_TOKEN_RANDOM_CHARS = 40;
/** The exact shape of an agent token. */
export const AGENT_TOKEN_PATTERN: RegExp = /^hsk_[0-9A-Za-z]{40}$/;
/** The base62 alphabet of the random part. */
export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * An agent token. The message on failure never quotes the token.
 */
export const AgentTokenSchema = z
  .string()
  .refine((s) => AGENT_TOKEN_PATTERN.test(s), { message: 'Must be hsk_ followed by 40 base62 characters' });
/** An agent token (a secret: never log it). */
export type AgentToken = z.output<typeof AgentTokenSchema>;

/**
 * True when `value` has the shape of an agent token. Shape only: whether the
 * service accepts it is another matter (`AGENT_TOKEN_INVALID`).
 *
 * @example
 * ```ts
 * if (!isAgentToken(process.env.AMS_TOKEN)) throw new Error('AMS_TOKEN is not an agent token');
 * ```
 */
export function isAgentToken(value: unknown): value is AgentToken {
  return typeof value === 'string' && AGENT_TOKEN_PATTERN.test(value);
}

/**
 * Builds a new agent token from a source of random bytes (used by the
 * reference server and tests). Bytes ≥ 248 are rejected so each of the 40
 * characters is uniform over base62; more bytes are drawn as needed.
 *
 * @throws {@link ConfigurationError} when `randomBytes` keeps returning no usable bytes.
 * @param randomBytes - returns `n` cryptographically random bytes (e.g. `crypto.getRandomValues`).
 * @example
 * ```ts
 * const token = generateAgentToken((n) => crypto.getRandomValues(new Uint8Array(n)));
 * ```
 */
export function generateAgentToken(randomBytes: (n: number) => Uint8Array): AgentToken {
  let out = AGENT_TOKEN_PREFIX;
  for (let round = 0; out.length < AGENT_TOKEN_PREFIX.length + AGENT_TOKEN_RANDOM_CHARS; round++) {
    const bytes = randomBytes(64);
    if (round >= 64 || bytes.length === 0) {
      throw new ConfigurationError({
        message: 'The random source returned too few usable bytes.',
        option: 'randomBytes',
      });
    }
    for (const b of bytes) {
      // 248 = 4 × 62: rejecting larger bytes keeps the distribution uniform.
      if (b < 248 && out.length < AGENT_TOKEN_PREFIX.length + AGENT_TOKEN_RANDOM_CHARS) {
        out += BASE62_ALPHABET[b % 62]!;
      }
    }
  }
  return out;
}
