/**
 * Crypto's check of a key backup record read back from the service (or a
 * file): untrusted input on its way to {@link restoreKeyBackup}.
 *
 * The record's shape is the core wire model's (`parseKeyBackupRecord` in
 * `packages/sdk/src/core/protocol/key-backup.ts`); this module adds what only crypto
 * knows:
 *
 * 1. only the seven known fields are picked, so extra fields a service
 *    returns beside the record (say `uploaded_at`) are dropped, not refused
 *    (the wire model is strict because it validates uploads);
 * 2. the wire model validates the picked fields; its `ValidationError`
 *    becomes `CryptoError` `KEY_BACKUP_INVALID` naming the paths only;
 * 3. crypto-only rules: `backup_a`/`backup_b` must be sealed keys of the
 *    layout in `layout.ts` with the key id of their slot, and
 *    `argon2_params` must stay within `ARGON2_PARAMS_MAX`;
 * 4. the form: both blobs of a full record have the same layout version, a
 *    version-2 blob must have been made for the record's form, so a full
 *    backup stripped to the minimal form is refused here, before any derivation.
 *
 * @module
 */
import { fromBase64 } from '../../core/encoding.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { isValidationError } from '../../core/errors/guards.js';
import {
  KeyBackupFullSchema,
  isFullKeyBackup,
  parseKeyBackupRecord,
  type KeyBackupRecord,
} from '../../core/protocol/key-backup.js';
import { BACKUP_KEY_ID, blobForm, blobVersion, hasBackupHeader, type BackupKeyId } from './layout.js';
import { argon2ParamsAboveCeiling } from './params.js';

/** The record's fields, from the wire model (the full form has them all). */
const KNOWN_FIELDS: readonly string[] = Object.keys(KeyBackupFullSchema.shape);
/** At most this many paths are named in a message. */
const MAX_PATHS = 5;

function invalid(paths: readonly string[]): CryptoError {
  const unique = [...new Set(paths)];
  const more = unique.length > MAX_PATHS ? ` (and ${unique.length - MAX_PATHS} more)` : '';
  return new CryptoError({
    code: 'KEY_BACKUP_INVALID',
    message: `Key backup record is invalid at: ${unique.slice(0, MAX_PATHS).join(', ')}${more}`,
  });
}

// Non-objects and arrays go through unchanged, so the wire model reports them.
function pickKnownFields(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return input;
  try {
    if (Array.isArray(input)) return input;
    const picked: Record<string, unknown> = {};
    for (const key of KNOWN_FIELDS) {
      if (Object.hasOwn(input, key)) picked[key] = (input as Record<string, unknown>)[key];
    }
    return picked;
  } catch {
    // A throwing getter or proxy trap; its error could quote anything, so it is not kept.
    throw invalid(['(record)']);
  }
}

function parseWire(input: unknown): KeyBackupRecord {
  try {
    return parseKeyBackupRecord(pickKnownFields(input));
  } catch (err) {
    if (!isValidationError(err)) throw err;
    throw invalid(err.issues.map((i) => (i.path.length === 0 ? '(record)' : i.path.join('.'))));
  }
}

function isSealed(text: string, keyId: BackupKeyId): boolean {
  const blob = fromBase64(text);
  return blob !== undefined && hasBackupHeader(blob, keyId);
}

function cryptoOnlyIssues(record: KeyBackupRecord): string[] {
  const paths: string[] = [];
  if (!isSealed(record.backup_a, BACKUP_KEY_ID.x25519)) paths.push('backup_a');
  if (isFullKeyBackup(record)) {
    if (!isSealed(record.backup_b, BACKUP_KEY_ID.ed25519)) paths.push('backup_b');
    for (const k of argon2ParamsAboveCeiling(record.argon2_params)) paths.push(`argon2_params.${k}`);
  }
  return paths;
}

/** Why the blobs do not fit the record's form (layout version 2 binds it), or `undefined`. */
function formIssue(record: KeyBackupRecord): string | undefined {
  const a = fromBase64(record.backup_a)!;
  if (!isFullKeyBackup(record)) {
    if (blobForm(a) !== 'full') return undefined;
    return (
      'Key backup record is invalid: backup_a belongs to a full-form backup whose backup_b, ' +
      'argon2_params and signing_public_key were removed (a downgrade to the minimal form)'
    );
  }
  const b = fromBase64(record.backup_b)!;
  if (blobVersion(a) !== blobVersion(b)) {
    return 'Key backup record is invalid: backup_a and backup_b have different layout versions';
  }
  if (blobVersion(a) === 2 && (blobForm(a) !== 'full' || blobForm(b) !== 'full')) {
    return 'Key backup record is invalid: a sealed key of this full-form record was made for the minimal form';
  }
  return undefined;
}

/**
 * Checks an untrusted key backup record (as fetched from the service) and
 * returns it as the core {@link KeyBackupRecord}, with unknown fields
 * dropped. Any full-form field selects the full form, which then needs all of
 * them. Derives nothing, so it is cheap.
 *
 * Parameters below the floor pass here; {@link restoreKeyBackup} refuses them.
 *
 * @param input - the record, in either form.
 * @throws {@link index!CryptoError | CryptoError} `KEY_BACKUP_INVALID`, naming the bad fields (never their values):
 *   malformed per the wire model, a sealed key that is not of this SDK's layout
 *   or sits in the wrong slot, or `argon2_params` above `ARGON2_PARAMS_MAX`; or
 *   blobs that do not fit the record's form (a stripped full backup).
 * @example
 * ```ts
 * const record = checkKeyBackupRecord((await rest.get('/keys/backup')).data);
 * if (isFullKeyBackup(record)) console.log(record.argon2_params);
 * ```
 */
export function checkKeyBackupRecord(input: unknown): KeyBackupRecord {
  const record = parseWire(input);
  const paths = cryptoOnlyIssues(record);
  if (paths.length > 0) throw invalid(paths);
  const form = formIssue(record);
  if (form !== undefined) throw new CryptoError({ code: 'KEY_BACKUP_INVALID', message: form });
  return record;
}
