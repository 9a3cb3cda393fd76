/**
 * `POST /keys/backup` (upload, either form) and `GET /keys/backup` (read it
 * back on a new device; KEY_BACKUP_NOT_FOUND when none was uploaded).
 *
 * The upload is checked structurally (canonical base64, a 32-byte salt,
 * 32-byte public keys, Argon2id parameters within bounds, a signing key the
 * SDK's Ed25519 rule accepts); whether the
 * parameters are strong enough is the client's decision
 * (KEY_BACKUP_PARAMS_TOO_WEAK is a client-side code). `device_id` must be the
 * device of the access token. A new upload replaces the old one.
 *
 * @module
 */
import { z } from 'zod';
import { fromBase64 } from 'agent-messaging-sdk/protocol';
import { hasAnyOwn } from 'agent-messaging-sdk/protocol';
import { ARGON2_PARAMS_MAX } from 'agent-messaging-sdk/protocol';
import {
  KeyBackupFullSchema,
  KeyBackupMinimalSchema,
  isFullKeyBackup,
  type KeyBackupRecord,
} from 'agent-messaging-sdk/protocol';
import { fail, invalidField } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import { parseBody } from '../http/validation.js';
import { refuseUnacceptableSigningKey } from './signing-key.js';
import { CORE_ROUTES } from 'agent-messaging-sdk/protocol';

/**
 * Upper bounds the server accepts for Argon2id parameters (m in KiB): the
 * client's own ceiling, above which a restoring client would refuse to run.
 */
const SERVER_ARGON2_MAX = ARGON2_PARAMS_MAX;

const FULL_ONLY = ['backup_b', 'argon2_params', 'signing_public_key'] as const;

function parseUpload(input: unknown): KeyBackupRecord {
  const record: KeyBackupRecord = hasAnyOwn(input, FULL_ONLY)
    ? parseBody(KeyBackupFullSchema, input)
    : parseBody(KeyBackupMinimalSchema, input);
  if (isFullKeyBackup(record)) {
    for (const k of ['m', 't', 'p'] as const) {
      if (record.argon2_params[k] > SERVER_ARGON2_MAX[k]) {
        throw invalidField(`argon2_params.${k}`, 'too_big', { max: SERVER_ARGON2_MAX[k] });
      }
    }
    // The schema guarantees 32-byte base64; the key becomes the user's published signing key.
    refuseUnacceptableSigningKey(fromBase64(record.signing_public_key)!);
  }
  return record;
}

const upload = defineRoute({
  method: 'POST',
  path: '/keys/backup',
  auth: 'user',
  body: z.unknown(),
  async handler({ body, principal, ctx }) {
    const record = parseUpload(body);
    if (record.device_id !== principal.deviceId) {
      throw invalidField(
        'device_id',
        'device_mismatch',
        {},
        'device_id must be the device this access token belongs to.',
      );
    }
    const uploadedAtMs = ctx.clock.now();
    const { created } = await ctx.store.keyBackups.put(principal.userId, { record, uploadedAtMs });
    const data = {
      device_id: record.device_id,
      form: isFullKeyBackup(record) ? 'full' : 'minimal',
      uploaded_at: new Date(uploadedAtMs).toISOString(),
    };
    return ok(data, created ? 201 : 200);
  },
});

const read = defineRoute({
  method: CORE_ROUTES.getKeyBackup.method,
  path: CORE_ROUTES.getKeyBackup.path,
  auth: 'user',
  async handler({ principal, ctx }) {
    const stored = await ctx.store.keyBackups.get(principal.userId);
    if (stored === undefined)
      throw fail('KEY_BACKUP_NOT_FOUND', 'No key backup has been uploaded for this account.');
    return ok({ ...stored.record, uploaded_at: new Date(stored.uploadedAtMs).toISOString() });
  },
});

/** Routes of the key backup. */
export const keyRoutes: readonly Route[] = [upload, read];
