/**
 * In-memory accounts. Each method runs to completion without awaiting, so
 * each is atomic on the single JavaScript thread.
 *
 * @module
 */
import type { LockPolicy, LoginFailureOutcome, NewUser, UserRecord, UserStore } from './types.js';

/** Creates an empty in-memory {@link UserStore}. */
export function createMemoryUserStore(): UserStore {
  const byId = new Map<string, UserRecord>();
  const idByEmail = new Map<string, string>();

  const update = (userId: string, patch: Partial<UserRecord>): UserRecord | undefined => {
    const user = byId.get(userId);
    if (user === undefined) return undefined;
    const next = { ...user, ...patch };
    byId.set(userId, next);
    return next;
  };

  return {
    async create(user: NewUser) {
      if (idByEmail.has(user.email)) return 'email_taken';
      const record: UserRecord = { ...user, failedLogins: 0, lockedUntilMs: 0, lockCount: 0 };
      byId.set(user.userId, record);
      idByEmail.set(user.email, user.userId);
      return record;
    },
    async byId(userId) {
      return byId.get(userId);
    },
    async byEmail(email) {
      const id = idByEmail.get(email);
      return id === undefined ? undefined : byId.get(id);
    },
    async recordLoginFailure(userId, nowMs, policy: LockPolicy): Promise<LoginFailureOutcome> {
      const user = byId.get(userId);
      if (user === undefined) return { locked: false, failedLogins: 0 };
      if (user.lockedUntilMs > nowMs)
        return { locked: true, lockedUntilMs: user.lockedUntilMs, newlyLocked: false };
      const failedLogins = (user.lockedUntilMs > 0 ? 0 : user.failedLogins) + 1;
      if (failedLogins >= policy.maxFailures) {
        const lockedUntilMs = nowMs + policy.lockMs;
        update(userId, { failedLogins: 0, lockedUntilMs, lockCount: user.lockCount + 1 });
        return { locked: true, lockedUntilMs, newlyLocked: true };
      }
      update(userId, { failedLogins, lockedUntilMs: 0 });
      return { locked: false, failedLogins };
    },
    async recordLoginSuccess(userId, nowMs) {
      const user = byId.get(userId);
      if (user === undefined) return 'ok';
      if (user.lockedUntilMs > nowMs) return { lockedUntilMs: user.lockedUntilMs };
      update(userId, { failedLogins: 0, lockedUntilMs: 0 });
      return 'ok';
    },
    async setPassword(userId, passwordHash) {
      update(userId, { passwordHash, failedLogins: 0, lockedUntilMs: 0 });
    },
    async markEmailVerified(userId) {
      update(userId, { emailVerified: true });
    },
  };
}
