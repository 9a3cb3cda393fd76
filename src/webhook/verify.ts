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
 * @module
 */
import { systemClock, type Clock } from '../core/clock.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { WebhookVerificationError } from '../core/errors/webhook-verification-error.js';
import { DEFAULT_WEBHOOK_OPTIONS, WEBHOOK_HEADERS } from './constants.js';
import { parseWebhookDelivery, type WebhookDelivery } from './delivery.js';
import { getHeader, type WebhookHeaderSource } from './headers.js';
import { isHex } from './hex.js';
import { resolveHmacBackend, type HmacBackend, type HmacBackendName, type HmacKey } from './hmac.js';
import { toSecretKeys, type WebhookSecretInput } from './secrets.js';
import { isValidDeliveryId, isUnixSeconds, toBodyBytes, type WebhookBody } from './verify-input.js';

/** Options of {@link createWebhookVerifier}. */
export interface WebhookVerifierOptions {
  /**
   * The webhook secret exactly as issued, or several during a rotation (the
   * result's `secretIndex` says which matched). Each must be at least 32 bytes
   * with no surrounding whitespace.
   */
  secret: WebhookSecretInput;
  /**
   * Largest accepted distance between the signing time and now, either direction.
   * May be lowered, never raised above the service's 300 s.
   * @defaultValue `300_000`
   */
  toleranceMs?: number;
  /** Source of "now". @defaultValue `systemClock` */
  clock?: Clock;
  /**
   * HMAC implementation: `auto` uses node:crypto on Node and WebCrypto elsewhere.
   * @defaultValue `'auto'`
   */
  crypto?: HmacBackendName | 'auto';
}

/** One delivery to verify. */
export interface WebhookVerifyInput {
  /** The raw body exactly as received (bytes; a string is taken as its UTF-8 bytes). */
  body: WebhookBody;
  /** Request headers: fetch `Headers`, Node's `req.headers` or a plain object, any case. */
  headers: WebhookHeaderSource;
  /** When the request arrived, ms since the epoch. @defaultValue the clock's now */
  receivedAtMs?: number;
}

/** An authenticated delivery whose body has not been parsed yet. */
export interface VerifiedSignature {
  /** `X-Service-Delivery-Id`: the de-duplication key. */
  readonly deliveryId: string;
  /** `X-Service-Timestamp`, Unix seconds. */
  readonly timestamp: number;
  /** `X-Service-Agent-Id` when sent (not covered by the signature). */
  readonly agentId: string | undefined;
  /** Index of the secret that matched (0 = the first given). */
  readonly secretIndex: number;
  /** The verified raw body. */
  readonly body: Uint8Array;
}

/** An authenticated, parsed and validated delivery. */
export interface VerifiedWebhook extends VerifiedSignature {
  /** The delivery body (wire field names). */
  readonly delivery: WebhookDelivery;
}

/** Verifies deliveries against keys prepared once. */
export interface WebhookVerifier {
  /** The tolerance in force, ms. */
  readonly toleranceMs: number;
  /** Resolves once the keys are prepared; rejects with the {@link ConfigurationError} that stops it. */
  ready(): Promise<void>;
  /**
   * Checks size, headers, timestamp and signature, then parses and validates the body.
   * @throws {@link WebhookVerificationError} with the status to answer.
   */
  verify(input: WebhookVerifyInput): Promise<VerifiedWebhook>;
  /**
   * Checks size, headers, timestamp and signature only; the body stays raw.
   * @throws {@link WebhookVerificationError} with the status to answer.
   */
  verifySignature(input: WebhookVerifyInput): Promise<VerifiedSignature>;
}

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

function tooLarge(maxBytes: number): WebhookVerificationError {
  return reject('WEBHOOK_PAYLOAD_TOO_LARGE', 413, 'The webhook body exceeds 1 MB.', { max_bytes: maxBytes });
}

function missingHeaders(...values: (string | undefined)[]): WebhookVerificationError {
  const names = ['X-Service-Signature', 'X-Service-Timestamp', 'X-Service-Delivery-Id'];
  const missing = names.filter((_, i) => !values[i]);
  return reject('WEBHOOK_HEADER_MISSING', 400, `Missing webhook header: ${missing.join(', ')}.`, { missing });
}

function malformedDeliveryId(): WebhookVerificationError {
  return reject('WEBHOOK_HEADER_MISSING', 400, 'Malformed webhook header: X-Service-Delivery-Id.', {
    malformed: ['X-Service-Delivery-Id'],
  });
}

function signatureMismatch(): WebhookVerificationError {
  return reject('WEBHOOK_SIGNATURE_INVALID', 401, 'The webhook signature does not match.');
}

class Verifier implements WebhookVerifier {
  readonly toleranceMs: number;
  readonly #clock: Clock;
  readonly #maxBodyBytes = DEFAULT_WEBHOOK_OPTIONS.maxBodyBytes;
  readonly #prepared: Promise<void>;
  #backend: HmacBackend | undefined;
  #keys: HmacKey[] = [];

  constructor(options: WebhookVerifierOptions) {
    const secrets = toSecretKeys(options.secret);
    this.toleranceMs = checkTolerance(options.toleranceMs);
    this.#clock = options.clock ?? systemClock;
    this.#prepared = this.#prepare(secrets, options.crypto ?? 'auto');
    // Surfaced by ready()/verify(); never an unhandled rejection.
    this.#prepared.catch(() => undefined);
  }

  async #prepare(secrets: Uint8Array[], preference: HmacBackendName | 'auto'): Promise<void> {
    const backend = await resolveHmacBackend(preference);
    this.#keys = await Promise.all(secrets.map((s) => backend.importKey(s)));
    this.#backend = backend;
  }

  ready(): Promise<void> {
    return this.#prepared;
  }

  verify(input: WebhookVerifyInput): Promise<VerifiedWebhook> {
    return this.verifySignature(input).then((verified) => ({
      ...verified,
      delivery: parseWebhookDelivery(verified.body),
    }));
  }

  verifySignature(input: WebhookVerifyInput): Promise<VerifiedSignature> {
    // Synchronous up to the HMAC on node:crypto, with one settled promise per call and
    // no closures on the fast path (the build keeps function names: a call per closure).
    try {
      const body = toBodyBytes(input.body);
      if (body.length > this.#maxBodyBytes) throw tooLarge(this.#maxBodyBytes);
      const headers = input.headers;
      const signature = getHeader(headers, WEBHOOK_HEADERS.signature);
      const timestamp = getHeader(headers, WEBHOOK_HEADERS.timestamp);
      const deliveryId = getHeader(headers, WEBHOOK_HEADERS.deliveryId);
      if (!signature || !timestamp || !deliveryId) throw missingHeaders(signature, timestamp, deliveryId);
      if (!isValidDeliveryId(deliveryId)) throw malformedDeliveryId();
      const seconds = this.#checkTimestamp(timestamp, input.receivedAtMs);
      if (!isHex(signature, 32)) {
        throw reject('WEBHOOK_SIGNATURE_INVALID', 401, 'The webhook signature is not 64 hex characters.');
      }
      const prefix = `${timestamp}.${deliveryId}.`;
      const index = this.#backend === undefined ? undefined : this.#match(prefix, body, signature);
      if (typeof index === 'number') {
        const agentId = getHeader(headers, WEBHOOK_HEADERS.agentId);
        return Promise.resolve({ deliveryId, timestamp: seconds, agentId, secretIndex: index, body });
      }
      const pending = index ?? this.#prepared.then(() => this.#match(prefix, body, signature));
      return pending.then((secretIndex) => {
        const agentId = getHeader(headers, WEBHOOK_HEADERS.agentId);
        return { deliveryId, timestamp: seconds, agentId, secretIndex, body };
      });
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /** Index of the first key whose HMAC matches; sync on node:crypto, a promise on WebCrypto. */
  #match(prefix: string, body: Uint8Array, signature: string): number | Promise<number> {
    const backend = this.#backend!;
    for (let i = 0; i < this.#keys.length; i++) {
      const ok = backend.verify(this.#keys[i]!, prefix, body, signature);
      if (ok === true) return i;
      if (ok !== false) return this.#matchAsync(prefix, body, signature, ok, i);
    }
    throw signatureMismatch();
  }

  async #matchAsync(
    prefix: string,
    body: Uint8Array,
    signature: string,
    first: Promise<boolean>,
    from: number,
  ): Promise<number> {
    if (await first) return from;
    for (let i = from + 1; i < this.#keys.length; i++) {
      if (await this.#backend!.verify(this.#keys[i]!, prefix, body, signature)) return i;
    }
    throw signatureMismatch();
  }

  #checkTimestamp(timestamp: string, receivedAtMs: number | undefined): number {
    const tolerance = this.toleranceMs / 1000;
    if (!isUnixSeconds(timestamp)) {
      throw reject('WEBHOOK_TIMESTAMP_SKEW', 400, 'The webhook timestamp is not a Unix time in seconds.', {
        tolerance_seconds: tolerance,
      });
    }
    const seconds = Number(timestamp);
    const now = receivedAtMs ?? this.#clock.now();
    if (Math.abs(now - seconds * 1000) > this.toleranceMs) {
      throw reject(
        'WEBHOOK_TIMESTAMP_SKEW',
        400,
        `The webhook timestamp is more than ${tolerance} s from now.`,
        {
          tolerance_seconds: tolerance,
        },
      );
    }
    return seconds;
  }
}

/**
 * Creates a verifier that prepares its HMAC keys once (node:crypto `KeyObject`
 * or WebCrypto `CryptoKey`) and verifies any number of deliveries.
 *
 * @throws {@link ConfigurationError} for a missing, short or padded secret or a bad `toleranceMs`.
 * @example
 * ```ts
 * const verifier = createWebhookVerifier({ secret: process.env.WEBHOOK_SECRET! });
 * const { deliveryId, delivery } = await verifier.verify({ body: rawBody, headers: req.headers });
 * ```
 */
export function createWebhookVerifier(options: WebhookVerifierOptions): WebhookVerifier {
  return new Verifier(options);
}
