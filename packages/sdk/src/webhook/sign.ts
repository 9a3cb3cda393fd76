/**
 * Signing webhook deliveries the way the service does: for the reference
 * server, the CLI and tests that need real signed requests.
 *
 * @module
 */
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { WEBHOOK_HEADERS } from './constants.js';
import { bytesToHex } from './hex.js';
import { resolveHmacBackend, type HmacBackendName } from './hmac.js';
import { toSecretKeys } from './secrets.js';
import { isUnixSeconds, isValidDeliveryId, toBodyBytes, type WebhookBody } from './verify-input.js';

/** One delivery to sign. */
export interface SignWebhookInput {
  /** Unix epoch seconds (an integer). */
  timestamp: number;
  /** The delivery id (a UUID v7 from the service). */
  deliveryId: string;
  /** The exact body bytes that will be sent (a string is taken as UTF-8). */
  body: WebhookBody;
  /** Adds `X-Service-Agent-Id` to the headers when given. */
  agentId?: string;
}

/** A signature and the request headers that carry it. */
export interface SignedWebhook {
  /** Lower-case hex HMAC-SHA256, 64 characters. */
  readonly signature: string;
  /** `Content-Type` and the `X-Service-*` headers to send with the body. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Options of {@link createWebhookSigner}. */
export interface WebhookSignerOptions {
  /** The webhook secret (at least 32 bytes, no surrounding whitespace). */
  secret: string;
  /** HMAC implementation. @defaultValue `'auto'` */
  crypto?: HmacBackendName | 'auto';
}

/** Signs deliveries with one key prepared once. */
export interface WebhookSigner {
  /** Signs one delivery. @throws {@link index!ConfigurationError | ConfigurationError} for a bad timestamp or delivery id. */
  sign(input: SignWebhookInput): Promise<SignedWebhook>;
}

function checkInput(input: SignWebhookInput): string {
  const ts = String(input.timestamp);
  if (!Number.isSafeInteger(input.timestamp) || !isUnixSeconds(ts)) {
    throw new ConfigurationError({
      option: 'timestamp',
      message: 'Option "timestamp" must be Unix seconds (a non-negative integer).',
    });
  }
  if (!isValidDeliveryId(input.deliveryId)) {
    throw new ConfigurationError({
      option: 'deliveryId',
      message: 'Option "deliveryId" must be 1–128 of A–Z a–z 0–9 - _ (a UUID).',
    });
  }
  return ts;
}

/**
 * Creates a signer whose HMAC key is prepared once.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} for a short or padded secret, or a `crypto`
 *   backend that is not available here.
 * @example
 * ```ts
 * const signer = createWebhookSigner({ secret });
 * const { headers } = await signer.sign({ timestamp: Math.floor(Date.now() / 1000), deliveryId, body });
 * await fetch(webhookUrl, { method: 'POST', headers, body });
 * ```
 */
export function createWebhookSigner(options: WebhookSignerOptions): WebhookSigner {
  const [secret] = toSecretKeys(options.secret);
  const backend = resolveHmacBackend(options.crypto ?? 'auto');
  const prepared = Promise.resolve(backend.importKey(secret!));
  prepared.catch(() => undefined);
  return {
    async sign(input) {
      const ts = checkInput(input);
      const mac = await backend.sign(await prepared, `${ts}.${input.deliveryId}.`, toBodyBytes(input.body));
      const signature = bytesToHex(mac);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        [WEBHOOK_HEADERS.signature]: signature,
        [WEBHOOK_HEADERS.timestamp]: ts,
        [WEBHOOK_HEADERS.deliveryId]: input.deliveryId,
      };
      if (input.agentId !== undefined) headers[WEBHOOK_HEADERS.agentId] = input.agentId;
      return { signature, headers };
    },
  };
}

/**
 * Signs one delivery: `hex(HMAC-SHA256(secret, timestamp + "." + deliveryId + "." + body))`.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} for a short or padded secret, a bad timestamp or delivery id.
 * @example
 * ```ts
 * const { signature, headers } = await signWebhook({ secret, timestamp: 1767225600, deliveryId, body });
 * ```
 */
export function signWebhook(input: SignWebhookInput & WebhookSignerOptions): Promise<SignedWebhook> {
  return createWebhookSigner(input).sign(input);
}
