/**
 * Security issue #17, finding 5: a server must not be able to downgrade a
 * full backup to the minimal form. Layout 2 binds the form (and both public
 * keys) into every blob; layout-1 records (stored vectors) still restore, and
 * `expectedSigningPublicKey` refuses a minimal record when the caller knows the
 * user has a signing key.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { isCryptoError, isValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import type {
  KeyBackupFull,
  KeyBackupMinimal,
} from '../../../../packages/sdk/src/core/protocol/key-backup.js';
import {
  BACKUP_BLOB_BYTES,
  checkKeyBackupRecord,
  createKeyBackup,
  createMinimalKeyBackup,
  restoreKeyBackup,
} from '../../../../packages/sdk/src/crypto/backup/index.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';
import { cheap, cheapRestore, PASSWORD } from './helpers.js';

interface V1File {
  readonly password: string;
  readonly x25519_private_key: string;
  readonly ed25519_private_key: string;
  readonly full: KeyBackupFull;
  readonly minimal: KeyBackupMinimal;
}
const V1: V1File = JSON.parse(
  readFileSync(new URL('../../../fixtures/key-backup/v1-records.json', import.meta.url), 'utf8'),
) as V1File;

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (isCryptoError(err) || isValidationError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a rejection');
}

function strip(record: KeyBackupFull): KeyBackupMinimal {
  const { backup_b: _b, argon2_params: _p, signing_public_key: _s, ...minimal } = record;
  return minimal;
}

const keys = generateKeys();
const full = await createKeyBackup(keys, PASSWORD, { deviceId: 'dev-1', ...cheap });
const minimal = await createMinimalKeyBackup(keys.encryption, PASSWORD, { deviceId: 'dev-1', ...cheap });
const hex = (b64: string, n: number) => Buffer.from(fromBase64(b64)!.subarray(0, n)).toString('hex');

describe('layout 2 binds the form', () => {
  it('writes 63-byte blobs with version 2, the key id and the form', () => {
    expect(BACKUP_BLOB_BYTES).toBe(63);
    expect([hex(full.backup_a, 3), hex(full.backup_b, 3), hex(minimal.backup_a, 3)]).toEqual([
      '020102',
      '020202',
      '020101',
    ]);
  });

  it('refuses a full backup stripped to the minimal form, before deriving, with KEY_BACKUP_INVALID', async () => {
    const stripped = strip(full);
    const f = await failure(restoreKeyBackup(stripped, PASSWORD, cheapRestore));
    expect(f.code).toBe('KEY_BACKUP_INVALID');
    expect(f.message).toContain('downgrade to the minimal form');
    // Refused by the cheap check too, and with any password (no derivation happened).
    expect((await failure(restoreKeyBackup(stripped, 'not the password', cheapRestore))).code).toBe(
      'KEY_BACKUP_INVALID',
    );
    expect(() => checkKeyBackupRecord(stripped)).toThrow(/downgrade/);
  });

  it('refuses a stripped backup whose form byte was rewritten too (the tag covers it)', async () => {
    const bytes = fromBase64(full.backup_a)!;
    bytes[2] = 0x01;
    const forged = { ...strip(full), backup_a: toBase64(bytes) };
    expect((await failure(restoreKeyBackup(forged, PASSWORD, cheapRestore))).code).toBe(
      'KEY_BACKUP_PASSWORD_INVALID',
    );
  });

  it('refuses a minimal blob in a full record and mixed layout versions', async () => {
    const minimalBlobInFull = { ...full, backup_a: minimal.backup_a };
    expect((await failure(restoreKeyBackup(minimalBlobInFull, PASSWORD, cheapRestore))).message).toContain(
      'made for the minimal form',
    );
    const mixed = { ...full, backup_a: V1.full.backup_a };
    expect((await failure(restoreKeyBackup(mixed, PASSWORD, cheapRestore))).message).toContain(
      'different layout versions',
    );
  });

  it('restores new records of both forms', async () => {
    const f = await restoreKeyBackup(full, PASSWORD, cheapRestore);
    expect(f.form === 'full' && f.keys.signing.privateKey).toEqual(keys.signing.privateKey);
    const m = await restoreKeyBackup(minimal, PASSWORD, cheapRestore);
    expect(m.form === 'minimal' && m.encryption.privateKey).toEqual(keys.encryption.privateKey);
  });
});

describe('layout 1 records (stored before the change)', () => {
  it('still restore, in both forms', async () => {
    const f = await restoreKeyBackup(V1.full, V1.password, cheapRestore);
    if (f.form !== 'full') throw new Error('expected the full form');
    expect(Buffer.from(f.keys.encryption.privateKey).toString('hex')).toBe(V1.x25519_private_key);
    expect(Buffer.from(f.keys.signing.privateKey).toString('hex')).toBe(V1.ed25519_private_key);
    const m = await restoreKeyBackup(V1.minimal, V1.password, cheapRestore);
    if (m.form !== 'minimal') throw new Error('expected the minimal form');
    expect(Buffer.from(m.encryption.privateKey).toString('hex')).toBe(V1.x25519_private_key);
  });

  it('a stripped layout-1 full record restores as minimal unless the caller expects a signing key', async () => {
    const stripped = strip(V1.full);
    expect((await restoreKeyBackup(stripped, V1.password, cheapRestore)).form).toBe('minimal');
    const signingKey = fromBase64(V1.full.signing_public_key)!;
    const f = await failure(
      restoreKeyBackup(stripped, 'any password', { ...cheapRestore, expectedSigningPublicKey: signingKey }),
    );
    expect(f.code).toBe('KEY_BACKUP_INVALID');
    expect(f.message).toContain('possible downgrade');
  });
});

describe('expectedSigningPublicKey', () => {
  it('accepts the full record that carries it and refuses another key, a minimal record, a bad option', async () => {
    const expected = { ...cheapRestore, expectedSigningPublicKey: keys.signing.publicKey };
    expect((await restoreKeyBackup(full, PASSWORD, expected)).form).toBe('full');
    const other = { ...cheapRestore, expectedSigningPublicKey: generateKeys().signing.publicKey };
    expect((await failure(restoreKeyBackup(full, PASSWORD, other))).message).toContain(
      'another signing_public_key',
    );
    expect((await failure(restoreKeyBackup(minimal, PASSWORD, expected))).code).toBe('KEY_BACKUP_INVALID');
    const bad = { ...cheapRestore, expectedSigningPublicKey: new Uint8Array(31) };
    expect((await failure(restoreKeyBackup(full, PASSWORD, bad))).code).toBe('VALIDATION_ERROR');
  });
});
