/**
 * What the old device hands the new one, sealed to the session key: the
 * account's public keys (so the new device can check that the key backup it
 * restores with the protection password is the one the old device uses, and
 * not an older or substituted backup) and the application's own `extras`.
 * No private key is ever in it.
 *
 * @module
 */
import * as z from '../../core/lazy-zod.js';
import { utf8 } from '../../core/encoding.js';
import type { ValidationError } from '../../core/errors/validation-error.js';
import { parseJson, parseWith, validationError } from '../../core/protocol/parse.js';
import { base64Schema } from '../../core/protocol/primitives.js';

/** Upper bound of the serialized bundle (bytes of JSON): 32 KiB. */
export const MIGRATION_BUNDLE_MAX_BYTES = 32 * 1024;

/** The bundle's JSON (wire field names). */
export const MigrationBundleSchema = z.strictObject({
  type: z.literal('ams.migration.bundle'),
  version: z.literal(1),
  user_id: z.string().min(1).max(256),
  public_key: base64Schema({ bytes: 32 }),
  signing_public_key: base64Schema({ bytes: 32 }).nullable(),
  extras: z.record(z.string(), z.unknown()),
});
/** The bundle's JSON. */
export type MigrationBundle = z.output<typeof MigrationBundleSchema>;

/**
 * Serializes a bundle.
 *
 * @throws {@link ValidationError} when it is not a valid bundle or above {@link MIGRATION_BUNDLE_MAX_BYTES}.
 */
export function encodeMigrationBundle(bundle: MigrationBundle): Uint8Array {
  const bytes = utf8(JSON.stringify(parseWith(MigrationBundleSchema, bundle, 'migration bundle')));
  if (bytes.length > MIGRATION_BUNDLE_MAX_BYTES) throw tooLarge(bytes.length);
  return bytes;
}

function tooLarge(size: number): ValidationError {
  return validationError('migration bundle', [
    { path: [], message: `At most ${MIGRATION_BUNDLE_MAX_BYTES} bytes (got ${size})` },
  ]);
}

/**
 * Parses the opened bundle bytes.
 *
 * @throws {@link ValidationError} for anything but a bundle of this version (never quotes the input).
 */
export function parseMigrationBundle(bytes: Uint8Array): MigrationBundle {
  if (bytes.length > MIGRATION_BUNDLE_MAX_BYTES) throw tooLarge(bytes.length);
  return parseWith(MigrationBundleSchema, parseJson(bytes, 'migration bundle'), 'migration bundle');
}
