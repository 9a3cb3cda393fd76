/**
 * Device migration signalling (`MIGRATION_ROUTES`): the old device opens a
 * session with a commitment to its ephemeral key, the new device joins by
 * code (and learns the session id and the commitment), then sends its
 * ephemeral key, the old device reveals its key, then posts the bundle
 * sealed to the key both derived. Sending the same key twice (a retried
 * request) answers the session again; another key is refused. The server relays public
 * values and ciphertext only; both devices must be signed in to the same
 * account (so the device limit of 5 applies to the new device at sign-in).
 *
 * Unknown, foreign, used and expired sessions all answer 404
 * `MIGRATION_SESSION_EXPIRED`; a step out of order is a VALIDATION_ERROR
 * with `reason: 'wrong_state'`.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import {
  JoinMigrationBodySchema,
  MIGRATION_COMMIT_LABEL,
  MigrationBundleBodySchema,
  MigrationKeyBodySchema,
  normalizeMigrationCode,
  RevealMigrationKeyBodySchema,
  StartMigrationBodySchema,
  type MigrationState,
} from 'agent-messaging-sdk/protocol';
import { MIGRATION_ROUTES } from 'agent-messaging-sdk/protocol';
import { fromBase64 } from 'agent-messaging-sdk/protocol';
import { invalidField } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import type { UserPrincipal } from '../http/types.js';
import type { ServerContext } from '../context.js';
import { migrationSessions, type MigrationRecord } from './sessions.js';

const R = MIGRATION_ROUTES;

/** The session as `deviceId` may see it. */
function view(r: MigrationRecord, deviceId: string, withCode = false): Record<string, unknown> {
  return {
    session_id: r.id,
    state: r.state,
    expires_at: new Date(r.expiresAtMs).toISOString(),
    ...(withCode ? { code: r.code } : {}),
    commitment: r.commitment,
    ...(r.newKey === undefined ? {} : { new_ephemeral_public_key: r.newKey }),
    ...(r.oldKey === undefined ? {} : { old_ephemeral_public_key: r.oldKey }),
    ...(r.bundle !== undefined && deviceId === r.newDeviceId ? { bundle: r.bundle } : {}),
  };
}

function session(ctx: ServerContext, id: string | undefined, p: UserPrincipal): MigrationRecord {
  return migrationSessions(ctx).byId(id ?? '', p.userId, p.deviceId, ctx.clock.now());
}

/** Refuses unless the caller is the old device and the session is in `state`. */
function oldDeviceStep(r: MigrationRecord, p: UserPrincipal, state: MigrationState): void {
  if (p.deviceId !== r.oldDeviceId) {
    throw invalidField(
      'device_id',
      'not_old_device',
      {},
      'Only the device that opened the session may do this.',
    );
  }
  inState(r, state);
}

/** Refuses unless the session is in `state`. */
function inState(r: MigrationRecord, state: MigrationState): void {
  if (r.state !== state) {
    throw invalidField(
      'state',
      'wrong_state',
      { state: r.state, expected: state },
      `The session is ${r.state}.`,
    );
  }
}

/** True when `p` is the session's old device. */
function isOldDevice(r: MigrationRecord, p: UserPrincipal): boolean {
  return p.deviceId === r.oldDeviceId;
}

const start = defineRoute({
  method: R.startMigration.method,
  path: R.startMigration.path,
  auth: 'user',
  body: StartMigrationBodySchema,
  handler({ body, principal, ctx }) {
    const r = migrationSessions(ctx).open(
      principal.userId,
      principal.deviceId,
      body.commitment,
      ctx.clock.now(),
    );
    return ok(view(r, principal.deviceId, true), 201);
  },
});

const join = defineRoute({
  method: R.joinMigration.method,
  path: R.joinMigration.path,
  auth: 'user',
  body: JoinMigrationBodySchema,
  handler({ body, principal, ctx }) {
    const code = normalizeMigrationCode(body.code);
    if (code === undefined) throw invalidField('code', 'invalid_format');
    const r = migrationSessions(ctx).byCode(principal.userId, code, ctx.clock.now());
    if (r.oldDeviceId === principal.deviceId) {
      throw invalidField(
        'device_id',
        'same_device',
        {},
        'Join from the new device, not the one that opened the session.',
      );
    }
    r.newDeviceId = principal.deviceId;
    r.state = 'joined';
    return ok(view(r, principal.deviceId));
  },
});

const submitKey = defineRoute({
  method: R.submitMigrationKey.method,
  path: R.submitMigrationKey.path,
  auth: 'user',
  body: MigrationKeyBodySchema,
  handler({ params, body, principal, ctx }) {
    const r = session(ctx, params['id'], principal);
    if (principal.deviceId !== r.newDeviceId) {
      throw invalidField('device_id', 'not_new_device', {}, 'Only the device that joined may do this.');
    }
    // A retried request with the same key answers the session again.
    if (r.newKey === body.ephemeral_public_key) return ok(view(r, principal.deviceId));
    inState(r, 'joined');
    r.newKey = body.ephemeral_public_key;
    r.state = 'keyed';
    return ok(view(r, principal.deviceId));
  },
});

const read = defineRoute({
  method: R.getMigration.method,
  path: R.getMigration.path,
  auth: 'user',
  handler({ params, principal, ctx }) {
    return ok(view(session(ctx, params['id'], principal), principal.deviceId));
  },
});

const reveal = defineRoute({
  method: R.revealMigrationKey.method,
  path: R.revealMigrationKey.path,
  auth: 'user',
  body: RevealMigrationKeyBodySchema,
  handler({ params, body, principal, ctx }) {
    const r = session(ctx, params['id'], principal);
    if (r.oldKey !== undefined && r.oldKey === body.ephemeral_public_key && isOldDevice(r, principal)) {
      return ok(view(r, principal.deviceId)); // a retried reveal
    }
    oldDeviceStep(r, principal, 'keyed');
    const digest = createHash('sha256')
      .update(MIGRATION_COMMIT_LABEL)
      .update(fromBase64(body.ephemeral_public_key)!)
      .digest('base64');
    if (digest !== r.commitment) throw invalidField('ephemeral_public_key', 'commitment_mismatch');
    r.oldKey = body.ephemeral_public_key;
    r.state = 'revealed';
    return ok(view(r, principal.deviceId));
  },
});

const bundle = defineRoute({
  method: R.sendMigrationBundle.method,
  path: R.sendMigrationBundle.path,
  auth: 'user',
  body: MigrationBundleBodySchema,
  handler({ params, body, principal, ctx }) {
    const r = session(ctx, params['id'], principal);
    oldDeviceStep(r, principal, 'revealed');
    r.bundle = body.bundle;
    r.state = 'sealed';
    return ok(view(r, principal.deviceId));
  },
});

const close = defineRoute({
  method: R.closeMigration.method,
  path: R.closeMigration.path,
  auth: 'user',
  handler({ params, principal, ctx }) {
    const r = session(ctx, params['id'], principal);
    migrationSessions(ctx).close(r.id);
    return ok({ session_id: r.id, closed: true });
  },
});

/** Routes of device migration. */
export const migrationRoutes: readonly Route[] = [start, join, submitKey, read, reveal, bundle, close];
