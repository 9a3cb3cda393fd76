/**
 * The one-call form of webhook verification, with a small cache of prepared verifiers.
 *
 * @module
 */
import {
  createWebhookVerifier,
  type VerifiedWebhook,
  type WebhookVerifier,
  type WebhookVerifierOptions,
  type WebhookVerifyInput,
} from './verify.js';

/** Input of {@link verifyWebhook}: one delivery plus the verifier options. */
export interface VerifyWebhookOptions extends WebhookVerifyInput, WebhookVerifierOptions {}

const cache = new Map<string, WebhookVerifier>();
const CACHE_SIZE = 8;

/**
 * Verifies one delivery. Verifiers (with their prepared keys) are kept for
 * the last 8 secret sets, so calling this per request stays fast;
 * a long-lived {@link createWebhookVerifier} is the more explicit choice.
 *
 * @throws {@link WebhookVerificationError} with the status to answer, or
 *   {@link index!ConfigurationError | ConfigurationError} for bad options.
 * @example
 * ```ts
 * const verified = await verifyWebhook({ body, headers, secret: [current, previous] });
 * if (verified.secretIndex > 0) log.warn('delivery signed with the previous secret');
 * ```
 */
export function verifyWebhook(options: VerifyWebhookOptions): Promise<VerifiedWebhook> {
  const key = JSON.stringify([options.secret, options.toleranceMs ?? null, options.crypto ?? 'auto']);
  let verifier = options.clock === undefined ? cache.get(key) : undefined;
  if (verifier === undefined) {
    verifier = createWebhookVerifier(options);
    if (options.clock === undefined) {
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(key, verifier);
    }
  }
  return verifier.verify(options);
}
