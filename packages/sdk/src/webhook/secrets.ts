/**
 * Checks on webhook secrets, made once at construction.
 *
 * @module
 */
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { utf8 } from '../core/encoding.js';
import { WEBHOOK_SECRET_MIN_BYTES } from '../core/limits/webhook.js';

/** One secret, or several during a rotation (the first is the current one). */
export type WebhookSecretInput = string | readonly string[];

/**
 * Validates the secrets and returns the HMAC key bytes of each: the UTF-8
 * bytes of the secret string exactly as issued (it is not base64-decoded).
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} (option `secret`) when no secret is given,
 *   one is not a string, is shorter than 32 bytes, or has surrounding whitespace.
 *   The message never contains the secret.
 */
export function toSecretKeys(input: WebhookSecretInput, option = 'secret'): Uint8Array[] {
  const list: readonly unknown[] = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [];
  if (list.length === 0) {
    throw new ConfigurationError({
      option,
      message: `Option "${option}" needs at least one webhook secret.`,
    });
  }
  return list.map((secret, i) => {
    const label = list.length === 1 ? `Option "${option}"` : `Option "${option}" (secret #${i + 1})`;
    if (typeof secret !== 'string') {
      throw new ConfigurationError({ option, message: `${label} must be a string.` });
    }
    if (secret !== secret.trim()) {
      throw new ConfigurationError({
        option,
        message: `${label} has leading or trailing whitespace; pass the secret exactly as issued (trim what you read from env or files).`,
      });
    }
    const bytes = utf8(secret);
    if (bytes.length < WEBHOOK_SECRET_MIN_BYTES) {
      throw new ConfigurationError({
        option,
        message: `${label} is ${bytes.length} bytes long; webhook secrets have at least ${WEBHOOK_SECRET_MIN_BYTES} bytes. Check that the whole secret was copied.`,
      });
    }
    return bytes;
  });
}
