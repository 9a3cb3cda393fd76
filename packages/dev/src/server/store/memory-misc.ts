/**
 * In-memory verification codes, key backups and passkeys. Each method runs to
 * completion without awaiting, so each is atomic.
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type {
  ChallengeRecord,
  CodeCheck,
  CodeScene,
  CodeStore,
  KeyBackupStore,
  PasskeyRecord,
  PasskeyStore,
  StoredKeyBackup,
} from './types.js';

interface PendingCode {
  readonly code: string;
  readonly expiresAtMs: number;
  attemptsLeft: number;
}

function sameCode(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Creates an empty in-memory {@link CodeStore}. */
export function createMemoryCodeStore(): CodeStore {
  const codes = new Map<string, PendingCode>();
  const k = (email: string, scene: CodeScene): string => `${scene}\u0000${email}`;
  return {
    async put(email, scene, code, expiresAtMs, attempts) {
      codes.set(k(email, scene), { code, expiresAtMs, attemptsLeft: attempts });
    },
    async consume(email, scene, code, nowMs): Promise<CodeCheck> {
      const pending = codes.get(k(email, scene));
      if (pending === undefined) return 'missing';
      if (pending.expiresAtMs <= nowMs) {
        codes.delete(k(email, scene));
        return 'expired';
      }
      if (sameCode(pending.code, code)) {
        codes.delete(k(email, scene));
        return 'ok';
      }
      pending.attemptsLeft -= 1;
      if (pending.attemptsLeft <= 0) {
        codes.delete(k(email, scene));
        return 'too_many_attempts';
      }
      return 'invalid';
    },
  };
}

/** Creates an empty in-memory {@link KeyBackupStore}. */
export function createMemoryKeyBackupStore(): KeyBackupStore {
  const backups = new Map<string, StoredKeyBackup>();
  return {
    async put(userId, backup) {
      const created = !backups.has(userId);
      backups.set(userId, backup);
      return { created };
    },
    async get(userId) {
      return backups.get(userId);
    },
  };
}

/** Creates an empty in-memory {@link PasskeyStore}. */
export function createMemoryPasskeyStore(): PasskeyStore {
  const passkeys = new Map<string, PasskeyRecord>();
  const challenges = new Map<string, ChallengeRecord>();
  return {
    async add(record) {
      if (passkeys.has(record.credentialId)) return 'exists';
      passkeys.set(record.credentialId, record);
      return record;
    },
    async byCredentialId(id) {
      return passkeys.get(id);
    },
    async listByUser(userId) {
      return [...passkeys.values()].filter((p) => p.userId === userId);
    },
    async recordUse(id, counter, nowMs) {
      const p = passkeys.get(id);
      if (p !== undefined) passkeys.set(id, { ...p, counter, lastUsedAtMs: nowMs });
    },
    async remove(userId, id) {
      const p = passkeys.get(id);
      if (p === undefined || p.userId !== userId) return false;
      return passkeys.delete(id);
    },
    async putChallenge(challenge, nowMs) {
      for (const [c, r] of challenges) if (r.expiresAtMs <= nowMs) challenges.delete(c);
      challenges.set(challenge.challenge, challenge);
    },
    async takeChallenge(challenge, nowMs) {
      const r = challenges.get(challenge);
      if (r === undefined) return undefined;
      challenges.delete(challenge);
      return r.expiresAtMs > nowMs ? r : undefined;
    },
  };
}
