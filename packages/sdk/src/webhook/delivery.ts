/**
 * The webhook delivery body (wire shape, snake_case as the service sends it)
 * and its hand-written validator. `./webhook` carries no runtime dependency,
 * so this does by hand what the zod schema `WebhookDeliveryBodySchema`
 * (`core/protocol/webhook-delivery.ts`) does for the root entry; a property
 * test keeps the two in agreement (see `docs/webhooks.md`, "Validation").
 *
 * @module
 */
import { fromUtf8, isBase64 } from '../core/encoding.js';
import { WebhookVerificationError } from '../core/errors/webhook-verification-error.js';
import { WEBHOOK_BODY_MAX_BYTES } from '../core/limits/webhook.js';
import { EVENT_TYPE_MAX_CHARS, WEBHOOK_EVENT_TYPES } from '../core/protocol/event-types.js';
import { isIdentifier, isIsoUtcMillis, isMediaType, isSafeObjectKey } from '../core/field-rules.js';

export { WEBHOOK_EVENT_TYPES };

/** A webhook event type: one of {@link WEBHOOK_EVENT_TYPES}, or a newer one kept as-is. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | (string & {});

/** Object reference sent instead of the envelope when a delivery would exceed 1 MB. */
export interface WebhookRef {
  /** Always `r2`. */
  readonly type: 'r2';
  /** Opaque key; fetched as `GET /r2/<object_key>`. */
  readonly object_key: string;
  /** Size of the ciphertext in bytes. */
  readonly size: number;
  /** Media type of the ciphertext. */
  readonly content_type: string;
}

/** `metadata` of a delivery. */
export interface WebhookMetadata {
  readonly conversation_id: string;
  readonly sender_id: string;
  /** ISO 8601 UTC timestamp with milliseconds. */
  readonly created_at: string;
}

/** The body of a webhook delivery, as sent by the service (wire field names). */
export interface WebhookDelivery {
  /** Event type. */
  readonly type: WebhookEventType;
  /** Body format version: `v1`. */
  readonly version: 'v1';
  /** Base64 of the encrypted envelope; `null` when {@link WebhookDelivery.ref} is present. */
  readonly wire_envelope: string | null;
  /** Present only for oversize payloads. */
  readonly ref?: WebhookRef;
  readonly metadata: WebhookMetadata;
}

function invalid(field: string, problem: string): WebhookVerificationError {
  return new WebhookVerificationError({
    code: 'WEBHOOK_PAYLOAD_INVALID',
    status: 400,
    message: `The webhook body is not a valid delivery: ${field} ${problem}.`,
    params: { field },
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseRef(v: unknown): WebhookRef {
  if (!isRecord(v)) throw invalid('ref', 'must be an object');
  if (v['type'] !== 'r2') throw invalid('ref.type', 'must be "r2"');
  const objectKey = v['object_key'];
  if (!isSafeObjectKey(objectKey)) {
    throw invalid(
      'ref.object_key',
      'must be a relative key without control characters, ?, #, \\ or dot segments',
    );
  }
  const size = v['size'];
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw invalid('ref.size', 'must be a non-negative integer');
  }
  const contentType = v['content_type'];
  if (!isMediaType(contentType)) throw invalid('ref.content_type', 'must be a media type');
  return { type: 'r2', object_key: objectKey, size, content_type: contentType };
}

function parseMetadata(v: unknown): WebhookMetadata {
  if (!isRecord(v)) throw invalid('metadata', 'must be an object');
  const { conversation_id: conversationId, sender_id: senderId, created_at: createdAt } = v;
  if (!isIdentifier(conversationId)) throw invalid('metadata.conversation_id', 'must be an identifier');
  if (!isIdentifier(senderId)) throw invalid('metadata.sender_id', 'must be an identifier');
  if (!isIsoUtcMillis(createdAt)) {
    throw invalid('metadata.created_at', 'must be an ISO 8601 UTC timestamp with milliseconds');
  }
  return { conversation_id: conversationId, sender_id: senderId, created_at: createdAt };
}

function checkEnvelope(envelope: unknown): string {
  if (
    typeof envelope !== 'string' ||
    envelope.length === 0 ||
    envelope.length > WEBHOOK_BODY_MAX_BYTES ||
    !isBase64(envelope)
  ) {
    throw invalid('wire_envelope', 'must be non-empty canonical base64 when ref is absent');
  }
  return envelope;
}

/**
 * Validates an already parsed delivery body and returns a clean copy holding
 * only the known fields (unknown fields, `payload` included, are dropped, never trusted).
 * `wire_envelope: null` selects the `ref` form; anything else the inline form.
 *
 * @throws {@link WebhookVerificationError} `WEBHOOK_PAYLOAD_INVALID` (400), naming the field.
 */
export function toWebhookDelivery(value: unknown): WebhookDelivery {
  if (!isRecord(value)) throw invalid('body', 'must be a JSON object');
  const type = value['type'];
  if (typeof type !== 'string' || type.length === 0 || type.length > EVENT_TYPE_MAX_CHARS) {
    throw invalid('type', `must be a string of 1 to ${EVENT_TYPE_MAX_CHARS} characters`);
  }
  if (value['version'] !== 'v1') throw invalid('version', 'must be "v1"');
  const metadata = parseMetadata(value['metadata']);
  if (value['wire_envelope'] === null) {
    return { type, version: 'v1', wire_envelope: null, ref: parseRef(value['ref']), metadata };
  }
  const envelope = checkEnvelope(value['wire_envelope']);
  if (value['ref'] !== undefined) throw invalid('ref', 'must be absent when wire_envelope is set');
  return { type, version: 'v1', wire_envelope: envelope, metadata };
}

interface Utf8Buffer {
  from(data: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: 'utf8'): string };
}
const NodeBuffer = (globalThis as { Buffer?: Utf8Buffer }).Buffer;

/**
 * Strict UTF-8 text of the body, exactly as `fromUtf8` (fatal decoder, a
 * leading byte order mark dropped). Where Buffer exists its faster decoder
 * runs first; it turns invalid sequences into U+FFFD, so only text holding
 * U+FFFD, or a body starting with a byte order mark, is decoded again by
 * `fromUtf8`.
 */
function bodyText(body: Uint8Array): string | undefined {
  if (NodeBuffer === undefined || (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf)) {
    return fromUtf8(body);
  }
  const text = NodeBuffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return text.includes('\uFFFD') ? fromUtf8(body) : text;
}

/**
 * Parses raw body bytes (UTF-8 JSON) into a validated {@link WebhookDelivery}.
 * Call only after the signature has been verified.
 *
 * @throws {@link WebhookVerificationError} `WEBHOOK_PAYLOAD_INVALID` (400).
 */
export function parseWebhookDelivery(body: Uint8Array): WebhookDelivery {
  const text = bodyText(body);
  if (text === undefined) throw invalid('body', 'must be UTF-8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('body', 'must be JSON');
  }
  return toWebhookDelivery(value);
}
