/**
 * Webhook signature verification.
 *
 * signed_string = `timestamp + "." + delivery_id + "." + raw body`; the
 * signature is hex HMAC-SHA256 over it, keyed with the UTF-8 bytes of the
 * secret. Checks run in a fixed order and stop at the first failure:
 *
 * 1. body size ≤ 1 MB                 → 413 `WEBHOOK_PAYLOAD_TOO_LARGE`
 * 2. all three headers present        → 400 `WEBHOOK_HEADER_MISSING`
 * 3. |now − timestamp| ≤ 300 s        → 400 `WEBHOOK_TIMESTAMP_SKEW`
 * 4. signature is 64 hex and matches  → 401 `WEBHOOK_SIGNATURE_INVALID` (constant-time compare)
 * 5. body is a valid delivery (JSON parsed only now) → 400 `WEBHOOK_PAYLOAD_INVALID`
 *
 * On node:crypto the whole check is synchronous (`verifySync`), and the
 * promise-returning methods delegate to it; on WebCrypto only the HMAC waits.
 *
 * @module
 */
import { systemClock, type Clock } from '../core/clock.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { WebhookVerificationError } from '../core/errors/webhook-verification-error.js';
import { DEFAULT_WEBHOOK_OPTIONS, WEBHOOK_HEADERS } from './constants.js';
import { parseWebhookDelivery } from './delivery.js';
import { getHeader, type WebhookHeaderSource } from './headers.js';
import { decodeHex } from './hex.js';
import { resolveHmacBackend, type HmacBackend, type HmacKey } from './hmac.js';
import { toSecretKeys } from './secrets.js';
import type {
  VerifiedSignature,
  VerifiedWebhook,
  WebhookVerifier,
  WebhookVerifierOptions,
  WebhookVerifyInput,
} from './verifier-types.js';
import { isValidDeliveryId, isUnixSeconds, toBodyBytes } from './verify-input.js';

export type {
  VerifiedSignature,
  VerifiedWebhook,
  WebhookVerifier,
  WebhookVerifierOptions,
  WebhookVerifyInput,
} from './verifier-types.js';

function reject(
  code: WebhookVerificationError['code'],
  status: number,
  message: string,
  params?: Record<string, unknown>,
): WebhookVerificationError {
  return new WebhookVerificationError({ code, status, message, ...(params ? { params } : {}) });
}

function checkTolerance(toleranceMs: number | undefined): number {
  const max = DEFAULT_WEBHOOK_OPTIONS.toleranceMs;
  if (toleranceMs === undefined) return max;
  if (
    typeof toleranceMs !== 'number' ||
    !Number.isFinite(toleranceMs) ||
    toleranceMs < 0 ||
    toleranceMs > max
  ) {
    throw new ConfigurationError({
      option: 'toleranceMs',
      message: `Option "toleranceMs" must be between 0 and ${max} (the service's 300 s upper bound).`,
    });
  }
  return toleranceMs;
}

function missingHeaders(...values: (string | undefined)[]): WebhookVerificationError {
  const names = ['X-Service-Signature', 'X-Service-Timestamp', 'X-Service-Delivery-Id'];
  const missing = names.filter((_, i) => !values[i]);
  return reject('WEBHOOK_HEADER_MISSING', 400, `Missing webhook header: ${missing.join(', ')}.`, { missing });
}

function signatureMismatch(): WebhookVerificationError {
  return reject('WEBHOOK_SIGNATURE_INVALID', 401, 'The webhook signature does not match.');
}

/** A request that passed every check before the HMAC. */
interface Checked {
  readonly body: Uint8Array;
  readonly headers: WebhookHeaderSource;
  /** `timestamp + "." + delivery_id + "."`: the signed string without the body. */
  readonly prefix: string;
  readonly deliveryId: string;
  readonly seconds: number;
}

function verified(c: Checked, secretIndex: number): VerifiedSignature {
  const agentId = getHeader(c.headers, WEBHOOK_HEADERS.agentId);
  return { deliveryId: c.deliveryId, timestamp: c.seconds, agentId, secretIndex, body: c.body };
}

class Verifier implements WebhookVerifier {
  readonly toleranceMs: number;
  readonly synchronous: boolean;
  readonly #clock: Clock;
  readonly #backend: HmacBackend;
  readonly #prepared: Promise<void>;
  /** The decoded signature; reused, since the synchronous path never interleaves. */
  readonly #signature = new Uint8Array(32);
  #keys: readonly HmacKey[] = [];

  constructor(options: WebhookVerifierOptions) {
    const secrets = toSecretKeys(options.secret);
    this.toleranceMs = checkTolerance(options.toleranceMs);
    this.#clock = options.clock ?? systemClock;
    this.#backend = resolveHmacBackend(options.crypto ?? 'auto');
    this.synchronous = this.#backend.sync;
    if (this.synchronous) {
      this.#keys = secrets.map((s) => this.#backend.importKey(s) as HmacKey);
      this.#prepared = Promise.resolve();
    } else {
      this.#prepared = Promise.all(secrets.map((s) => this.#backend.importKey(s))).then((keys) => {
        this.#keys = keys;
      });
      // Surfaced by ready()/verify(); never an unhandled rejection.
      this.#prepared.catch(() => undefined);
    }
  }

  ready(): Promise<void> {
    return this.#prepared;
  }

  verifySync(input: WebhookVerifyInput): VerifiedWebhook {
    const v = this.verifySignatureSync(input);
    return { ...v, delivery: parseWebhookDelivery(v.body) };
  }

  verifySignatureSync(input: WebhookVerifyInput): VerifiedSignature {
    if (!this.synchronous) {
      throw new ConfigurationError({
        option: 'crypto',
        message: 'Synchronous verification needs node:crypto; use verify() or verifySignature() here.',
      });
    }
    const checked = this.#check(input);
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++) {
      if (this.#backend.verify(keys[i]!, checked.prefix, checked.body, this.#signature) === true) {
        return verified(checked, i);
      }
    }
    throw signatureMismatch();
  }

  verify(input: WebhookVerifyInput): Promise<VerifiedWebhook> {
    if (this.synchronous) {
      try {
        return Promise.resolve(this.verifySync(input));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    return this.verifySignature(input).then((v) => ({ ...v, delivery: parseWebhookDelivery(v.body) }));
  }

  verifySignature(input: WebhookVerifyInput): Promise<VerifiedSignature> {
    try {
      if (this.synchronous) return Promise.resolve(this.verifySignatureSync(input));
      const checked = this.#check(input);
      const signature = this.#signature.slice();
      return this.#prepared.then(() => this.#matchAsync(checked, signature));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  async #matchAsync(checked: Checked, signature: Uint8Array): Promise<VerifiedSignature> {
    for (let i = 0; i < this.#keys.length; i++) {
      if (await this.#backend.verify(this.#keys[i]!, checked.prefix, checked.body, signature)) {
        return verified(checked, i);
      }
    }
    throw signatureMismatch();
  }

  /** Every check before the HMAC, in the documented order; leaves the decoded signature in #signature. */
  #check(input: WebhookVerifyInput): Checked {
    const body = toBodyBytes(input.body);
    const max = DEFAULT_WEBHOOK_OPTIONS.maxBodyBytes;
    if (body.length > max) {
      throw reject('WEBHOOK_PAYLOAD_TOO_LARGE', 413, 'The webhook body exceeds 1 MB.', { max_bytes: max });
    }
    const headers = input.headers;
    const signature = getHeader(headers, WEBHOOK_HEADERS.signature);
    const timestamp = getHeader(headers, WEBHOOK_HEADERS.timestamp);
    const deliveryId = getHeader(headers, WEBHOOK_HEADERS.deliveryId);
    if (!signature || !timestamp || !deliveryId) throw missingHeaders(signature, timestamp, deliveryId);
    if (!isValidDeliveryId(deliveryId)) {
      throw reject('WEBHOOK_HEADER_MISSING', 400, 'Malformed webhook header: X-Service-Delivery-Id.', {
        malformed: ['X-Service-Delivery-Id'],
      });
    }
    const seconds = this.#checkTimestamp(timestamp, input.receivedAtMs);
    if (!decodeHex(signature, this.#signature)) {
      throw reject('WEBHOOK_SIGNATURE_INVALID', 401, 'The webhook signature is not 64 hex characters.');
    }
    return { body, headers, prefix: `${timestamp}.${deliveryId}.`, deliveryId, seconds };
  }

  #checkTimestamp(timestamp: string, receivedAtMs: number | undefined): number {
    const seconds = isUnixSeconds(timestamp) ? Number(timestamp) : Number.NaN;
    const now = receivedAtMs ?? this.#clock.now();
    // NaN fails the comparison, so a malformed timestamp lands here too.
    if (!(Math.abs(now - seconds * 1000) <= this.toleranceMs)) {
      const tolerance = this.toleranceMs / 1000;
      const what = Number.isNaN(seconds)
        ? 'is not a Unix time in seconds'
        : `is more than ${tolerance} s from now`;
      throw reject('WEBHOOK_TIMESTAMP_SKEW', 400, `The webhook timestamp ${what}.`, {
        tolerance_seconds: tolerance,
      });
    }
    return seconds;
  }
}

/**
 * Creates a verifier that prepares its HMAC keys once (node:crypto `KeyObject`
 * or WebCrypto `CryptoKey`) and verifies any number of deliveries.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} for a missing, short or padded secret, a bad
 *   `toleranceMs`, or a `crypto` backend that is not available here.
 * @example
 * ```ts
 * const verifier = createWebhookVerifier({ secret: process.env.WEBHOOK_SECRET! });
 * const { deliveryId, delivery } = await verifier.verify({ body: rawBody, headers: req.headers });
 * // On Node, without the promise:
 * const same = verifier.verifySync({ body: rawBody, headers: req.headers });
 * ```
 */
export function createWebhookVerifier(options: WebhookVerifierOptions): WebhookVerifier {
  return new Verifier(options);
}
