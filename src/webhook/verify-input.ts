/**
 * Small input checks of the verifier, kept apart so the signer shares them.
 *
 * @module
 */
import { utf8 } from '../core/encoding.js';
import { MAX_DELIVERY_ID_LENGTH } from './constants.js';

/** A raw webhook body: bytes (Buffer included), an ArrayBuffer, or a string taken as UTF-8. */
export type WebhookBody = Uint8Array | ArrayBuffer | string;

/** The bytes of a raw body. */
export function toBodyBytes(body: WebhookBody): Uint8Array {
  if (body instanceof Uint8Array) return body;
  if (typeof body === 'string') return utf8(body);
  return new Uint8Array(body);
}

/**
 * True for a plausible delivery id: 1–128 of `A–Z a–z 0–9 - _` (UUIDs fit).
 * Anything else is refused before it reaches the signed string, where a `.`
 * would make the field boundaries ambiguous.
 */
export function isValidDeliveryId(id: string): boolean {
  if (id.length === 0 || id.length > MAX_DELIVERY_ID_LENGTH) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const ok = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || c === 45 || c === 95;
    if (!ok) return false;
  }
  return true;
}

/** True for 1–12 ASCII digits (Unix seconds until the year 33658). */
export function isUnixSeconds(text: string): boolean {
  if (text.length === 0 || text.length > 12) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
