/**
 * The webhook delivery body (wire shape, snake_case as the service sends it)
 * and its hand-written validator. `./webhook` carries no runtime dependency,
 * so this does by hand what a schema library would.
 *
 * @module
 */
import { fromUtf8 } from '../core/encoding.js';
import { WebhookVerificationError } from '../core/errors/webhook-verification-error.js';

/** Event types the service delivers by webhook. Others may appear later and are passed through. */
export const WEBHOOK_EVENT_TYPES = [
  'message.new',
  'relation.established',
  'relation.revoked',
  'relation.suspended',
  'relation.restored',
  'artifact_response',
  'agent.capability_changed',
] as const;

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

const MAX_FIELD_LENGTH = 1024;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

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

function shortString(obj: Record<string, unknown>, key: string, path: string): string {
  const v = obj[key];
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_FIELD_LENGTH) {
    throw invalid(path, 'must be a non-empty string');
  }
  return v;
}

function parseRef(v: unknown): WebhookRef {
  if (!isRecord(v)) throw invalid('ref', 'must be an object');
  if (v['type'] !== 'r2') throw invalid('ref.type', 'must be "r2"');
  const objectKey = shortString(v, 'object_key', 'ref.object_key');
  if (objectKey.split('/').some((s) => s === '.' || s === '..')) {
    throw invalid('ref.object_key', 'must not contain "." or ".." path segments');
  }
  const size = v['size'];
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw invalid('ref.size', 'must be a non-negative integer');
  }
  return {
    type: 'r2',
    object_key: objectKey,
    size,
    content_type: shortString(v, 'content_type', 'ref.content_type'),
  };
}

function parseMetadata(v: unknown): WebhookMetadata {
  if (!isRecord(v)) throw invalid('metadata', 'must be an object');
  const createdAt = shortString(v, 'created_at', 'metadata.created_at');
  if (!TIMESTAMP.test(createdAt) || Number.isNaN(Date.parse(createdAt))) {
    throw invalid('metadata.created_at', 'must be an ISO 8601 timestamp');
  }
  return {
    conversation_id: shortString(v, 'conversation_id', 'metadata.conversation_id'),
    sender_id: shortString(v, 'sender_id', 'metadata.sender_id'),
    created_at: createdAt,
  };
}

/**
 * Validates an already parsed delivery body and returns a clean copy holding
 * only the known fields (unknown fields are dropped, never trusted).
 *
 * @throws {@link WebhookVerificationError} `WEBHOOK_PAYLOAD_INVALID` (400), naming the field.
 */
export function toWebhookDelivery(value: unknown): WebhookDelivery {
  if (!isRecord(value)) throw invalid('body', 'must be a JSON object');
  const type = shortString(value, 'type', 'type');
  if (value['version'] !== 'v1') throw invalid('version', 'must be "v1"');
  const envelope = value['wire_envelope'];
  const hasRef = value['ref'] !== undefined && value['ref'] !== null;
  if (hasRef) {
    if (envelope !== null && envelope !== undefined)
      throw invalid('wire_envelope', 'must be null when ref is present');
  } else if (typeof envelope !== 'string' || envelope.length === 0) {
    throw invalid('wire_envelope', 'must be a base64 string when ref is absent');
  }
  const metadata = parseMetadata(value['metadata']);
  if (!hasRef) return { type, version: 'v1', wire_envelope: envelope as string, metadata };
  return { type, version: 'v1', wire_envelope: null, ref: parseRef(value['ref']), metadata };
}

/**
 * Parses raw body bytes (UTF-8 JSON) into a validated {@link WebhookDelivery}.
 * Call only after the signature has been verified.
 *
 * @throws {@link WebhookVerificationError} `WEBHOOK_PAYLOAD_INVALID` (400).
 */
export function parseWebhookDelivery(body: Uint8Array): WebhookDelivery {
  const text = fromUtf8(body);
  if (text === undefined) throw invalid('body', 'must be UTF-8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('body', 'must be JSON');
  }
  return toWebhookDelivery(value);
}
