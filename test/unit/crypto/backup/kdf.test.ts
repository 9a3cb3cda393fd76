import { describe, expect, it } from 'vitest';
import { isCryptoError } from '../../../../packages/sdk/src/core/errors/index.js';
import { deriveBackupKey } from '../../../../packages/sdk/src/crypto/backup/kdf.js';
import {
  BACKUP_KEY_ID,
  openPrivateKey,
  sealPrivateKey,
} from '../../../../packages/sdk/src/crypto/backup/layout.js';
import { CHEAP } from './helpers.js';

const salt = new Uint8Array(32).fill(7);

describe('deriveBackupKey', () => {
  it('derives a non-extractable AES-256-GCM key, the same for the same inputs', async () => {
    const k1 = await deriveBackupKey('password-1', salt, CHEAP);
    const k2 = await deriveBackupKey('password-1', salt, CHEAP);
    expect(k1.extractable).toBe(false);
    expect(k1.algorithm).toMatchObject({ name: 'AES-GCM', length: 256 });
    const priv = new Uint8Array(32).fill(1);
    const pub = new Uint8Array(32).fill(2);
    const bound = { form: 'minimal', publicKey: pub, signingPublicKey: undefined } as const;
    const blob = await sealPrivateKey(k1, BACKUP_KEY_ID.x25519, priv, bound);
    expect(await openPrivateKey(k2, BACKUP_KEY_ID.x25519, blob, bound)).toEqual(priv);
    const k3 = await deriveBackupKey('password-2', salt, CHEAP);
    expect(await openPrivateKey(k3, BACKUP_KEY_ID.x25519, blob, bound)).toBeUndefined();
    expect(await openPrivateKey(k2, BACKUP_KEY_ID.ed25519, blob, bound)).toBeUndefined();
    const otherKey = { ...bound, publicKey: new Uint8Array(32) };
    expect(await openPrivateKey(k2, BACKUP_KEY_ID.x25519, blob, otherKey)).toBeUndefined();
    const otherForm = { form: 'full', publicKey: pub, signingPublicKey: new Uint8Array(32) } as const;
    expect(await openPrivateKey(k2, BACKUP_KEY_ID.x25519, blob, otherForm)).toBeUndefined();
  });

  it('turns an Argon2id failure into a typed error', async () => {
    await expect(deriveBackupKey('', salt, CHEAP)).rejects.toSatisfy((err) =>
      isCryptoError(err, 'KEY_BACKUP_INVALID'),
    );
  });
});
