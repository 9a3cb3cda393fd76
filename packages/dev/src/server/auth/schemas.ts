/**
 * Request bodies of the human authentication endpoints. All are strict: an
 * unknown field is a VALIDATION_ERROR naming it.
 *
 * `device_id` and `device_name` on the sign-in bodies are the reference
 * server's addition (the service interface binds each token to a device but
 * does not show how the device is named); both are optional.
 *
 * @module
 */
import { z } from 'zod';
import { LIMITS } from 'agent-messaging-sdk/protocol';
import { DEVICE_NAME_MAX_CHARS } from 'agent-messaging-sdk/protocol';
import { DeviceIdSchema } from 'agent-messaging-sdk/protocol';
import { boundedText } from '../http/validation.js';

/** Longest accepted account password, in characters (our bound; stops hashing huge inputs). */
export const ACCOUNT_PASSWORD_MAX_CHARS = 1024;
/** Longest accepted Turnstile token (Cloudflare's are ~2 KB at most). */
export const TURNSTILE_TOKEN_MAX_CHARS = 4096;

/** An email address, trimmed and lower-cased before use. */
export const EmailSchema = z.string().max(254).trim().toLowerCase().pipe(z.email());

/** A 6-digit verification code. */
export const CodeSchema = z.string().regex(/^\d{6}$/, { message: 'Must be 6 digits' });

/** `account_password`: 8 to 1024 characters (code points). */
export const AccountPasswordSchema = boundedText(
  LIMITS.ACCOUNT_PASSWORD_MIN_CHARS,
  ACCOUNT_PASSWORD_MAX_CHARS,
  {
    allowControl: true,
  },
);

/** `display_name`: 2 to 24 user-perceived characters (grapheme clusters), no control characters. */
export const DisplayNameSchema = boundedText(LIMITS.DISPLAY_NAME_MIN_CHARS, LIMITS.DISPLAY_NAME_MAX_CHARS, {
  counting: 'graphemes',
});

function isLocaleTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** `device_locale`: a BCP 47 language tag such as `en-GB`. */
export const DeviceLocaleSchema = z
  .string()
  .max(64)
  .refine(isLocaleTag, { message: 'Must be a BCP 47 language tag' });

/** A human-verification token. */
export const TurnstileTokenSchema = z.string().min(1).max(TURNSTILE_TOKEN_MAX_CHARS);

/** A device name: 1 to 64 characters, unique per account. */
export const DeviceNameSchema = boundedText(1, DEVICE_NAME_MAX_CHARS, { counting: 'graphemes' });

/** Optional device fields of every sign-in body. */
export const deviceFields = {
  device_id: DeviceIdSchema.optional(),
  device_name: DeviceNameSchema.optional(),
};

/** `POST /auth/send-code`. */
export const SendCodeBodySchema = z.strictObject({
  email: EmailSchema,
  scene: z.enum(['register', 'login', 'reset']),
  turnstile_token: TurnstileTokenSchema,
});

/** `POST /auth/register`. */
export const RegisterBodySchema = z.strictObject({
  email: EmailSchema,
  code: CodeSchema,
  account_password: AccountPasswordSchema,
  display_name: DisplayNameSchema,
  device_locale: DeviceLocaleSchema,
  turnstile_token: TurnstileTokenSchema,
  ...deviceFields,
});

/** `POST /auth/login`. */
export const LoginBodySchema = z.strictObject({
  email: EmailSchema,
  account_password: z
    .string()
    .min(1)
    .max(ACCOUNT_PASSWORD_MAX_CHARS * 4),
  turnstile_token: TurnstileTokenSchema,
  ...deviceFields,
});

/** `POST /auth/login-code`. */
export const LoginCodeBodySchema = z.strictObject({
  email: EmailSchema,
  code: CodeSchema,
  ...deviceFields,
});

/** `POST /auth/reset-password`. */
export const ResetPasswordBodySchema = z.strictObject({
  email: EmailSchema,
  code: CodeSchema,
  new_account_password: AccountPasswordSchema,
});

/** The device a sign-in names. */
export interface DeviceInput {
  readonly deviceId?: string | undefined;
  readonly deviceName?: string | undefined;
}

/** Reads the optional device fields of a sign-in body. */
export function deviceInputOf(body: {
  device_id?: string | undefined;
  device_name?: string | undefined;
}): DeviceInput {
  return { deviceId: body.device_id, deviceName: body.device_name };
}
