import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { isCryptoError, isValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  ARGON2_PARAMS_FLOOR,
  BACKUP_BLOB_BYTES,
  DEFAULT_ARGON2_PARAMS,
  createKeyBackup,
  createMinimalKeyBackup,
  restoreKeyBackup,
} from '../../../../packages/sdk/src/crypto/backup/index.js';
import type { KeyBackupFull } from '../../../../packages/sdk/src/core/protocol/key-backup.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';
import { CHEAP, PASSWORD, TEST_FLOOR, cheap, cheapRestore } from './helpers.js';

const keys = generateKeys();
const full: KeyBackupFull = await createKeyBackup(keys, PASSWORD, { deviceId: 'device-A', ...cheap });

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (isCryptoError(err) || isValidationError(err)) return err.code;
    throw err;
  }
  throw new Error('expected a rejection');
}

function flipByte(b64: string, index: number): string {
  const bytes = fromBase64(b64)!;
  bytes[index] = bytes[index]! ^ 0x01;
  return toBase64(bytes);
}

describe('createKeyBackup / restoreKeyBackup', () => {
  it('round-trips the full form with both key pairs', async () => {
    expect(Object.keys(full).sort()).toEqual(
      [
        'argon2_params',
        'argon2_salt',
        'backup_a',
        'backup_b',
        'device_id',
        'public_key',
        'signing_public_key',
      ].sort(),
    );
    expect(fromBase64(full.argon2_salt)).toHaveLength(32);
    expect(fromBase64(full.backup_a)).toHaveLength(BACKUP_BLOB_BYTES);
    expect(full.argon2_params).toEqual(CHEAP);
    expect(full.public_key).toBe(toBase64(keys.encryption.publicKey));
    const restored = await restoreKeyBackup(JSON.parse(JSON.stringify(full)), PASSWORD, cheapRestore);
    expect(restored.form).toBe('full');
    if (restored.form !== 'full') return;
    expect(restored.keys.encryption.privateKey).toEqual(keys.encryption.privateKey);
    expect(restored.keys.signing.privateKey).toEqual(keys.signing.privateKey);
    expect(restored.keys.signing.publicKey).toEqual(keys.signing.publicKey);
    expect(restored.deviceId).toBe('device-A');
  });

  it('round-trips the minimal form: X25519 pair only, params implied', async () => {
    const min = await createMinimalKeyBackup(keys.encryption, PASSWORD, { deviceId: 'device-B', ...cheap });
    expect(Object.keys(min).sort()).toEqual(['argon2_salt', 'backup_a', 'device_id', 'public_key']);
    const restored = await restoreKeyBackup(min, PASSWORD, cheapRestore);
    expect(restored.form).toBe('minimal');
    if (restored.form !== 'minimal') return;
    expect(restored.encryption.privateKey).toEqual(keys.encryption.privateKey);
    expect(restored.params).toEqual(CHEAP);
    // Other implied parameters derive another key: the record does not open.
    const other = { minParams: TEST_FLOOR, minimalFormParams: { m: 128, t: 1, p: 1 } };
    expect(await codeOf(restoreKeyBackup(min, PASSWORD, other))).toBe('KEY_BACKUP_PASSWORD_INVALID');
  });

  it('uses the default parameters end to end (full form)', async () => {
    const record = await createKeyBackup(keys, PASSWORD, { deviceId: 'device-C' });
    expect(record.argon2_params).toEqual(DEFAULT_ARGON2_PARAMS);
    const restored = await restoreKeyBackup(record, PASSWORD);
    expect(restored.form === 'full' && restored.keys.signing.privateKey).toEqual(keys.signing.privateKey);
  });

  it('gives KEY_BACKUP_PASSWORD_INVALID for a wrong password', async () => {
    expect(await codeOf(restoreKeyBackup(full, `${PASSWORD}!`, cheapRestore))).toBe(
      'KEY_BACKUP_PASSWORD_INVALID',
    );
    expect(await codeOf(restoreKeyBackup(full, '', cheapRestore))).toBe('KEY_BACKUP_PASSWORD_INVALID');
  });

  it('normalises the password to NFC', async () => {
    const decomposed = 'Cafe\u0301 au lait 42';
    const record = await createKeyBackup(keys, decomposed, { deviceId: 'd', ...cheap });
    const restored = await restoreKeyBackup(record, 'Caf\u00e9 au lait 42', cheapRestore);
    expect(restored.form).toBe('full');
  });

  it('refuses a server downgrade of argon2_params below the floor before deriving', async () => {
    const strong = await createKeyBackup(keys, PASSWORD, {
      deviceId: 'd',
      params: { m: ARGON2_PARAMS_FLOOR.m, t: ARGON2_PARAMS_FLOOR.t, p: 1 },
    });
    const downgraded = { ...strong, argon2_params: { m: 1024, t: 1, p: 1 } };
    expect(await codeOf(restoreKeyBackup(downgraded, PASSWORD))).toBe('KEY_BACKUP_PARAMS_TOO_WEAK');
    // The cheap test record is itself below the default floor.
    expect(await codeOf(restoreKeyBackup(full, PASSWORD))).toBe('KEY_BACKUP_PARAMS_TOO_WEAK');
    // Raising the parameters does not help a tamperer either: another key is derived.
    const changed = { ...full, argon2_params: { m: 128, t: 1, p: 1 } };
    expect(await codeOf(restoreKeyBackup(changed, PASSWORD, cheapRestore))).toBe(
      'KEY_BACKUP_PASSWORD_INVALID',
    );
  });

  it('refuses to create below the floor, and implied minimal-form params below it', async () => {
    const weak = { deviceId: 'd', params: { m: 1024, t: 1, p: 1 } };
    expect(await codeOf(createKeyBackup(keys, PASSWORD, weak))).toBe('KEY_BACKUP_PARAMS_TOO_WEAK');
    const min = await createMinimalKeyBackup(keys.encryption, PASSWORD, { deviceId: 'd', ...cheap });
    expect(await codeOf(restoreKeyBackup(min, PASSWORD, { minimalFormParams: CHEAP }))).toBe(
      'KEY_BACKUP_PARAMS_TOO_WEAK',
    );
  });

  it('detects swapped backup_a / backup_b and swapped public keys', async () => {
    const swapped = { ...full, backup_a: full.backup_b, backup_b: full.backup_a };
    expect(await codeOf(restoreKeyBackup(swapped, PASSWORD, cheapRestore))).toBe('KEY_BACKUP_INVALID');
    const keysSwapped = { ...full, public_key: full.signing_public_key, signing_public_key: full.public_key };
    expect(await codeOf(restoreKeyBackup(keysSwapped, PASSWORD, cheapRestore))).toBe(
      'KEY_BACKUP_PASSWORD_INVALID',
    );
    // backup_b from another backup under the same password: AAD binds it to this signing_public_key.
    const other = await createKeyBackup(generateKeys(), PASSWORD, { deviceId: 'x', ...cheap });
    const mixed = { ...full, backup_b: other.backup_b };
    expect(await codeOf(restoreKeyBackup(mixed, PASSWORD, cheapRestore))).toBe('KEY_BACKUP_INVALID');
    // Layout 2 binds both public keys into backup_a too, so the first blob already fails its tag.
    const otherSigning = { ...full, signing_public_key: other.signing_public_key };
    expect(await codeOf(restoreKeyBackup(otherSigning, PASSWORD, cheapRestore))).toBe(
      'KEY_BACKUP_PASSWORD_INVALID',
    );
  });

  it('detects a change to any byte of backup_a, backup_b or the salt', async () => {
    for (let i = 0; i < BACKUP_BLOB_BYTES; i++) {
      const a = await codeOf(
        restoreKeyBackup({ ...full, backup_a: flipByte(full.backup_a, i) }, PASSWORD, cheapRestore),
      );
      // Bytes 0–2 (version, key id, form) are checked before any derivation.
      expect(a).toBe(i < 3 ? 'KEY_BACKUP_INVALID' : 'KEY_BACKUP_PASSWORD_INVALID');
      const b = await codeOf(
        restoreKeyBackup({ ...full, backup_b: flipByte(full.backup_b, i) }, PASSWORD, cheapRestore),
      );
      expect(b).toBe('KEY_BACKUP_INVALID');
    }
    const salt = { ...full, argon2_salt: flipByte(full.argon2_salt, 5) };
    expect(await codeOf(restoreKeyBackup(salt, PASSWORD, cheapRestore))).toBe('KEY_BACKUP_PASSWORD_INVALID');
  });

  it('arbitrary records and passwords only ever give typed errors', async () => {
    const field = fc.oneof(
      fc.constantFrom(...Object.values(full).filter((v) => typeof v === 'string')),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map(toBase64),
      fc.anything(),
    );
    const arb = fc.record(
      {
        backup_a: field,
        backup_b: field,
        argon2_salt: field,
        argon2_params: fc.oneof(fc.constant(CHEAP), fc.anything()),
        public_key: field,
        signing_public_key: field,
        device_id: fc.oneof(fc.constant('d'), fc.anything()),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(arb, fc.oneof(fc.constant(PASSWORD), fc.string()), async (record, password) => {
        const code = await restoreKeyBackup(record, password, cheapRestore).then(
          () => 'ok',
          (err: unknown) => (isCryptoError(err) ? err.code : 'untyped'),
        );
        expect([
          'ok',
          'KEY_BACKUP_INVALID',
          'KEY_BACKUP_PARAMS_TOO_WEAK',
          'KEY_BACKUP_PASSWORD_INVALID',
        ]).toContain(code);
      }),
      { numRuns: 200 },
    );
  });

  it('validates caller input with ValidationError and keeps the password out of the record and errors', async () => {
    expect(await codeOf(createKeyBackup(keys, 'short', { deviceId: 'd', ...cheap }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(await codeOf(createKeyBackup(keys, PASSWORD, { deviceId: '', ...cheap }))).toBe(
      'VALIDATION_ERROR',
    );
    const badParams = { deviceId: 'd', params: { m: 1, t: 0, p: 1 }, minParams: TEST_FLOOR };
    expect(await codeOf(createKeyBackup(keys, PASSWORD, badParams))).toBe('VALIDATION_ERROR');
    const mismatched = {
      encryption: keys.encryption,
      signing: { privateKey: keys.signing.privateKey, publicKey: keys.encryption.publicKey },
    };
    expect(await codeOf(createKeyBackup(mismatched, PASSWORD, { deviceId: 'd', ...cheap }))).toBe(
      'VALIDATION_ERROR',
    );
    const wrongPair = {
      publicKey: generateKeys().encryption.publicKey,
      privateKey: keys.encryption.privateKey,
    };
    expect(await codeOf(createMinimalKeyBackup(wrongPair, PASSWORD, { deviceId: 'd', ...cheap }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(JSON.stringify(full)).not.toContain(PASSWORD);
    try {
      await restoreKeyBackup(full, `${PASSWORD}x`, cheapRestore);
    } catch (err) {
      expect(JSON.stringify((err as { toJSON(): unknown }).toJSON())).not.toContain(PASSWORD);
      expect((err as Error).message).not.toContain(PASSWORD);
    }
  });

  it('salts every backup afresh', async () => {
    const again = await createKeyBackup(keys, PASSWORD, { deviceId: 'device-A', ...cheap });
    expect(again.argon2_salt).not.toBe(full.argon2_salt);
    expect(again.backup_a).not.toBe(full.backup_a);
  });
});
