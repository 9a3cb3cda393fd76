/**
 * Key pairs made by the SDK keep private key bytes out of `util.inspect`
 * (console.log) and `JSON.stringify`, in every text form, while the public
 * API keeps working.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createKeyBackup } from '../../../packages/sdk/src/crypto/backup/create.js';
import { restoreKeyBackup } from '../../../packages/sdk/src/crypto/backup/restore.js';
import { KeyRing } from '../../../packages/sdk/src/crypto/key-store/key-ring.js';
import { decodeKeyRing, encodeKeyRing } from '../../../packages/sdk/src/crypto/key-store/key-ring-codec.js';
import {
  generateKeys,
  keysFromPrivate,
  REDACTED_PRIVATE_KEY,
  type AgentKeys,
} from '../../../packages/sdk/src/crypto/keys.js';
import { open } from '../../../packages/sdk/src/crypto/open.js';
import { seal } from '../../../packages/sdk/src/crypto/seal.js';
import { cheap, cheapRestore, PASSWORD } from './backup/helpers.js';

/** Every text form of a private key that could leak: hex (both cases), base64, base64url, decimal list. */
function forms(key: Uint8Array): string[] {
  const b = Buffer.from(key);
  return [
    b.toString('hex'),
    b.toString('hex').toUpperCase(),
    b.toString('base64'),
    b.toString('base64url'),
    b.toString('base64').replace(/=+$/, ''),
    [...key].join(', '),
    [...key].join(','),
  ];
}

function expectNoPrivateBytes(text: string, keys: AgentKeys): void {
  for (const key of [keys.encryption.privateKey, keys.signing.privateKey]) {
    for (const form of forms(key)) expect(text).not.toContain(form);
  }
}

describe('AgentKeys redaction', () => {
  const keys = generateKeys();

  it('util.inspect and JSON.stringify show public keys and no private key bytes', () => {
    const shown = [
      inspect(keys),
      inspect(keys, { showHidden: true, depth: 10 }),
      inspect(keys.signing),
      JSON.stringify(keys),
      JSON.stringify(keys.encryption),
      JSON.stringify({ nested: [keys] }),
    ];
    for (const text of shown) expectNoPrivateBytes(text, keys);
    expect(JSON.parse(JSON.stringify(keys))).toEqual({
      encryption: {
        publicKey: Buffer.from(keys.encryption.publicKey).toString('base64'),
        privateKey: REDACTED_PRIVATE_KEY,
      },
      signing: {
        publicKey: Buffer.from(keys.signing.publicKey).toString('base64'),
        privateKey: REDACTED_PRIVATE_KEY,
      },
    });
    expect(inspect(keys)).toContain(REDACTED_PRIVATE_KEY);
  });

  it('keeps the private key out of spreads and Object.keys, but readable by name', () => {
    expect(Object.keys(keys.signing)).toEqual(['publicKey']);
    expect({ ...keys.signing }).toEqual({ publicKey: keys.signing.publicKey });
    expect(keys.signing.privateKey).toHaveLength(32);
    expect(Object.isFrozen(keys.signing) && Object.isFrozen(keys)).toBe(true);
    const again = keysFromPrivate(keys.encryption.privateKey, keys.signing.privateKey);
    expect(again.signing.publicKey).toEqual(keys.signing.publicKey);
  });

  it('the public API still works: seal, open, the key store codec', () => {
    const me = generateKeys();
    const wire = seal(
      { type: 'text', text: 'hi' },
      {
        sender: { id: 'a', signing: keys.signing },
        recipients: [{ id: 'b', publicKey: me.encryption.publicKey }],
        conversationId: 'c',
      },
    );
    const opened = open(wire, { recipientId: 'b', keys: me, senderKey: keys.signing.publicKey });
    expect(opened.payload).toEqual({ type: 'text', text: 'hi' });
    const ring = KeyRing.create(keys, 1);
    const restored = decodeKeyRing(encodeKeyRing(ring), 'ring.json');
    expect(restored.current.keys.signing.privateKey).toEqual(keys.signing.privateKey);
    expectNoPrivateBytes(inspect(restored) + JSON.stringify(restored), keys);
  });

  it('keys restored from a backup are redacted too', async () => {
    const record = await createKeyBackup(keys, PASSWORD, { deviceId: 'dev-1', ...cheap });
    const restored = await restoreKeyBackup(record, PASSWORD, cheapRestore);
    if (restored.form !== 'full') throw new Error('expected the full form');
    expect(restored.keys.signing.privateKey).toEqual(keys.signing.privateKey);
    expectNoPrivateBytes(inspect(restored, { depth: 10 }) + JSON.stringify(restored), keys);
  });
});

describe('a spread copy of a key pair', () => {
  it('has no private key, and the backup refuses it with a ValidationError (not a TypeError)', async () => {
    const keys = generateKeys();
    const copy = { encryption: keys.encryption, signing: { ...keys.signing } } as unknown as AgentKeys;
    let caught: unknown;
    try {
      await createKeyBackup(copy, PASSWORD, { deviceId: 'dev-1', ...cheap });
    } catch (err) {
      caught = err;
    }
    expect((caught as { code?: string }).code).toBe('VALIDATION_ERROR');
  });
});
