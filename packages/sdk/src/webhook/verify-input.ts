/**
 * Small input checks of the verifier, kept apart so the signer shares them.
 *
 * @module
 */
import { utf8 } from '../core/encoding.js';
import { MAX_DELIVERY_ID_LENGTH } from './constants.js';

// Regular expressions beat charCode loops here (measured: ~60 ns against ~130 ns for a UUID).
const DELIVERY_ID = /^[A-Za-z0-9_-]*$/;
const UNIX_SECONDS = /^[0-9]{1,12}$/;

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
  return id.length > 0 && id.length <= MAX_DELIVERY_ID_LENGTH && DELIVERY_ID.test(id);
}

/** True for 1–12 ASCII digits (Unix seconds until the year 33658). */
export function isUnixSeconds(text: string): boolean {
  return UNIX_SECONDS.test(text);
}
