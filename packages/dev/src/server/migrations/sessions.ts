/**
 * The reference server's migration sessions: short-lived signalling state
 * between a user's old and new device, kept in memory per server (it is not
 * account data: a restart simply ends open sessions). Each session lives
 * {@link MIGRATION_SESSION_TTL_MS} from its opening; afterwards every lookup
 * answers `MIGRATION_SESSION_EXPIRED`, the same as an unknown id or code.
 *
 * @module
 */
import { randomInt, randomUUID } from 'node:crypto';
import {
  MIGRATION_CODE_ALPHABET,
  MIGRATION_CODE_LENGTH,
  MIGRATION_SESSION_TTL_MS,
  type MigrationState,
} from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { fail, type ServerFailure } from '../http/failure.js';

/** One session as the server keeps it (public values and ciphertext only). */
export interface MigrationRecord {
  readonly id: string;
  readonly code: string;
  readonly userId: string;
  readonly oldDeviceId: string;
  readonly expiresAtMs: number;
  readonly commitment: string;
  state: MigrationState;
  newDeviceId?: string;
  newKey?: string;
  oldKey?: string;
  bundle?: string;
}

/** The sessions of one server. */
export class MigrationSessions {
  readonly #byId = new Map<string, MigrationRecord>();

  /** Opens a session for `userId` on `deviceId`; the device's earlier open sessions end. */
  open(userId: string, deviceId: string, commitment: string, nowMs: number): MigrationRecord {
    this.#sweep(nowMs);
    for (const r of this.#byId.values()) {
      if (r.userId === userId && r.oldDeviceId === deviceId) this.#byId.delete(r.id);
    }
    const record: MigrationRecord = {
      id: randomUUID(),
      code: this.#freshCode(userId),
      userId,
      oldDeviceId: deviceId,
      expiresAtMs: nowMs + MIGRATION_SESSION_TTL_MS,
      commitment,
      state: 'open',
    };
    this.#byId.set(record.id, record);
    return record;
  }

  /** The live session of `userId` with `code` that nobody joined yet. */
  byCode(userId: string, code: string, nowMs: number): MigrationRecord {
    for (const r of this.#byId.values()) {
      if (r.userId === userId && r.code === code && r.state === 'open' && nowMs < r.expiresAtMs) return r;
    }
    throw expired();
  }

  /** The live session `id` if the caller is one of its two devices. */
  byId(id: string, userId: string, deviceId: string, nowMs: number): MigrationRecord {
    const r = this.#byId.get(id);
    if (r === undefined || nowMs >= r.expiresAtMs) {
      if (r !== undefined) this.#byId.delete(id);
      throw expired();
    }
    if (r.userId !== userId || (deviceId !== r.oldDeviceId && deviceId !== r.newDeviceId)) throw expired();
    return r;
  }

  /** Ends session `id`. */
  close(id: string): void {
    this.#byId.delete(id);
  }

  #sweep(nowMs: number): void {
    for (const r of this.#byId.values()) if (nowMs >= r.expiresAtMs) this.#byId.delete(r.id);
  }

  #freshCode(userId: string): string {
    for (;;) {
      let code = '';
      for (let i = 0; i < MIGRATION_CODE_LENGTH; i++) code += MIGRATION_CODE_ALPHABET[randomInt(32)];
      const clash = [...this.#byId.values()].some((r) => r.userId === userId && r.code === code);
      if (!clash) return code;
    }
  }
}

/** The one answer for an unknown, foreign, used or expired session. */
export function expired(): ServerFailure {
  return fail(
    'MIGRATION_SESSION_EXPIRED',
    'No migration session is open under this code or id: it expired (10 minutes), ended, or the code is wrong. Start the migration again on the old device.',
  );
}

const perServer = new WeakMap<ServerContext, MigrationSessions>();

/** The migration sessions of the server `ctx` belongs to. */
export function migrationSessions(ctx: ServerContext): MigrationSessions {
  let sessions = perServer.get(ctx);
  if (sessions === undefined) {
    sessions = new MigrationSessions();
    perServer.set(ctx, sessions);
  }
  return sessions;
}
