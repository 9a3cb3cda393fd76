/**
 * Device migration signalling (a gap of the service interface, which only
 * names `MIGRATION_SESSION_EXPIRED`): the session code, the request bodies
 * and the session view both devices poll. docs/device-migration.md gives the
 * whole protocol; the routes are `MIGRATION_ROUTES` in `service-names.ts`.
 *
 * The service relays public values and ciphertext only: a commitment to the
 * old device's ephemeral X25519 key, the two ephemeral public keys, and the
 * bundle sealed under the key the two devices agree on. The order is
 * commit-then-reveal on both sides: the new device sends its key only after
 * it holds the session id and the commitment, and the old device reveals its
 * key only after the new key is in, so a relay fixes everything it shows a
 * device before it learns the value that device adds to the verification
 * string (docs/device-migration.md, "Why a relay gets one guess").
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { validationError } from './parse.js';
import { base64Schema, UuidSchema } from './primitives.js';

/** How long a migration session lives after it is opened: 10 minutes. */
export const MIGRATION_SESSION_TTL_MS = 10 * 60_000;
/** Characters of a session code (Crockford base32, 40 bits). */
export const MIGRATION_CODE_LENGTH = 8;
/** The code alphabet: Crockford base32 (no I, L, O, U). */
export const MIGRATION_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/**
 * Prefix of the commitment: `commitment = SHA-256(label ‖ old ephemeral public key)`
 * (UTF-8 label, raw 32-byte key).
 */
export const MIGRATION_COMMIT_LABEL = 'ams/migration/v2/commit';
/** Upper bound of a sealed bundle, in base64 characters (64 KiB of bytes). */
export const MIGRATION_BUNDLE_MAX_CHARS = 87_384;

const LOOKALIKES: Readonly<Record<string, string>> = { O: '0', I: '1', L: '1' };
const SEPARATORS = /[\s-]/g;

/**
 * The canonical form of a session code as a person may type it: case,
 * spaces and hyphens ignored, `O` read as `0`, `I`/`L` as `1`. Undefined when
 * it is not 8 characters of the alphabet after that.
 */
export function normalizeMigrationCode(input: unknown): string | undefined {
  if (typeof input !== 'string' || input.length > 64) return undefined;
  let out = '';
  for (const ch of input.replace(SEPARATORS, '').toUpperCase()) {
    const c = LOOKALIKES[ch] ?? ch;
    if (!MIGRATION_CODE_ALPHABET.includes(c)) return undefined;
    out += c;
  }
  return out.length === MIGRATION_CODE_LENGTH ? out : undefined;
}

/**
 * Parses a session code typed by a person into its canonical 8 characters.
 *
 * @throws {@link ValidationError} when it is not a code (the message never quotes it).
 * @example
 * ```ts
 * parseMigrationCode('abcd-efgh'); // 'ABCDEFGH'
 * ```
 */
export function parseMigrationCode(input: unknown): string {
  const code = normalizeMigrationCode(input);
  if (code === undefined) {
    throw validationError('migration code', [
      {
        path: ['code'],
        message: `Must be ${MIGRATION_CODE_LENGTH} characters of 0-9 and A-Z (no I, L, O, U)`,
      },
    ]);
  }
  return code;
}

/** A canonical code shown in two groups of four: `ABCD-EFGH`. */
export function formatMigrationCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** A 32-byte value in canonical base64 (keys, commitments). */
const Key32Schema = base64Schema({ bytes: 32 });

/** `POST /migrations` body: the commitment to the old device's ephemeral key. */
export const StartMigrationBodySchema = z.strictObject({ commitment: Key32Schema });
/** `POST /migrations` body. */
export type StartMigrationBody = z.output<typeof StartMigrationBodySchema>;

/**
 * `POST /migrations/join` body: the code only. The new device's ephemeral key
 * follows in `POST /migrations/:id/key`, once the device holds the session id
 * and the old device's commitment.
 */
export const JoinMigrationBodySchema = z.strictObject({ code: z.string().max(64) });
/** `POST /migrations/join` body. */
export type JoinMigrationBody = z.output<typeof JoinMigrationBodySchema>;

/** `POST /migrations/:id/key` body: the new device's ephemeral public key. */
export const MigrationKeyBodySchema = z.strictObject({ ephemeral_public_key: Key32Schema });
/** `POST /migrations/:id/key` body. */
export type MigrationKeyBody = z.output<typeof MigrationKeyBodySchema>;

/** `POST /migrations/:id/reveal` body. */
export const RevealMigrationKeyBodySchema = z.strictObject({ ephemeral_public_key: Key32Schema });
/** `POST /migrations/:id/reveal` body. */
export type RevealMigrationKeyBody = z.output<typeof RevealMigrationKeyBodySchema>;

/** `POST /migrations/:id/bundle` body. */
export const MigrationBundleBodySchema = z.strictObject({
  bundle: base64Schema({ minBytes: 61, maxChars: MIGRATION_BUNDLE_MAX_CHARS }),
});
/** `POST /migrations/:id/bundle` body. */
export type MigrationBundleBody = z.output<typeof MigrationBundleBodySchema>;

/**
 * Where a session stands: `open` (waiting for the new device), `joined`
 * (the new device is in and holds the commitment), `keyed` (the new
 * device's key is in), `revealed` (the old device's key is in: both show the
 * verification string), `sealed` (the bundle waits for the new device).
 */
export const MigrationStateSchema = z.enum(['open', 'joined', 'keyed', 'revealed', 'sealed']);
/** Where a session stands. */
export type MigrationState = z.output<typeof MigrationStateSchema>;

/** The session as either device reads it (fields appear as the session advances). */
export const MigrationSessionSchema = z.object({
  session_id: UuidSchema,
  state: MigrationStateSchema,
  expires_at: z.string(),
  /** Only in the answer to the old device's `POST /migrations`. */
  code: z.string().optional(),
  commitment: Key32Schema,
  new_ephemeral_public_key: Key32Schema.optional(),
  old_ephemeral_public_key: Key32Schema.optional(),
  /** Only to the new device, once `sealed`. */
  bundle: base64Schema({ maxChars: MIGRATION_BUNDLE_MAX_CHARS }).optional(),
});
/** The session as either device reads it. */
export type MigrationSession = z.output<typeof MigrationSessionSchema>;
