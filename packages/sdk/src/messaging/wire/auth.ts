/**
 * Wire schemas of human authentication and account endpoints: the token
 * answer of register / login / login-code / refresh / passkey, send-code,
 * the key backup upload and device revocation.
 *
 * The service shows `user_id`, `access_token` and `expires_in_seconds`;
 * `device_id` and `token_type` are the reference server's additions and
 * optional here. Loose objects.
 *
 * @module
 */
import * as z from '../../core/lazy-zod.js';
import { IdentifierSchema } from '../../core/protocol/primitives.js';

/** The answer of every sign-in and of `POST /auth/refresh` (the refresh cookie comes as Set-Cookie). */
export const TokenAnswerSchema = z.looseObject({
  user_id: IdentifierSchema,
  access_token: z.string().regex(/^[\x21-\x7e]{1,8192}$/, { message: 'Must be visible ASCII' }),
  expires_in_seconds: z.number().int().positive(),
  device_id: IdentifierSchema.optional(),
  token_type: z.string().max(32).optional(),
});
/** A token answer (wire field names). The access token is a secret. */
export type TokenAnswer = z.output<typeof TokenAnswerSchema>;

/** `POST /auth/send-code`. */
export const SendCodeAnswerSchema = z.looseObject({ expires_in_seconds: z.number().int().positive() });
/** A send-code answer (wire field names). */
export type SendCodeAnswer = z.output<typeof SendCodeAnswerSchema>;

/** `POST /auth/reset-password` (not shown by the service; the reference server's answer). */
export const PasswordResetAnswerSchema = z.looseObject({
  password_reset: z.literal(true).optional(),
  devices_signed_out: z.number().int().nonnegative().optional(),
});

/** `POST /keys/backup` (not shown by the service; loose). */
export const KeyBackupUploadAnswerSchema = z.union([
  z.looseObject({ device_id: IdentifierSchema.optional(), form: z.string().max(32).optional() }),
  z.undefined(),
]);

/** `DELETE /users/me/devices/:device_id` (not shown by the service; loose). */
export const DeviceRevokedSchema = z.union([
  z.looseObject({ device_id: IdentifierSchema.optional(), revoked: z.boolean().optional() }),
  z.undefined(),
]);
