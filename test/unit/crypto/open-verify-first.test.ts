/**
 * Security issue #17, note 7: `openAsync` verifies envelopes above
 * OPEN_VERIFY_FIRST_BYTES before decrypting anything, so a forged large
 * envelope costs one hash and one verify, not a decryption and a JSON.parse.
 */
import { describe, expect, it } from 'vitest';
import type { SyncCryptoBackend } from '../../../packages/sdk/src/crypto/backend/types.js';
import { ENVELOPE_REF_MAX_BYTES } from '../../../packages/sdk/src/crypto/envelope-wire.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import { OPEN_VERIFY_FIRST_BYTES, openAsync } from '../../../packages/sdk/src/crypto/open.js';
import { sealBytes } from '../../../packages/sdk/src/crypto/seal.js';
import { flipByte } from '../../fixtures/envelope/tamper.js';
import { catchCryptoAsync, node, nobleBackend } from './helpers.js';

const sender = generateKeys();
const me = generateKeys();

function envelope(textBytes: number): Uint8Array {
  return sealBytes(
    { type: 'text', text: 'x'.repeat(textBytes) },
    {
      sender: { id: 's', signing: sender.signing },
      recipients: [{ id: 'me', publicKey: me.encryption.publicKey }],
      conversationId: 'c',
      maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES,
    },
  );
}

/** The node backend with AES-GCM decryptions counted, on both the sync and the async primitives. */
function counting(): { backend: SyncCryptoBackend; decryptions: () => number } {
  let n = 0;
  const sync = {
    ...node.sync,
    aesGcmDecrypt: (...args: Parameters<typeof node.sync.aesGcmDecrypt>) => {
      n++;
      return node.sync.aesGcmDecrypt(...args);
    },
  };
  const async = {
    ...node.async,
    aesGcmDecrypt: async (...args: Parameters<typeof sync.aesGcmDecrypt>) => sync.aesGcmDecrypt(...args),
  };
  return { backend: { ...node, sync, async }, decryptions: () => n };
}

const options = { recipientId: 'me', keys: me, maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES };

describe('openAsync verifies large envelopes first', () => {
  const large = envelope(OPEN_VERIFY_FIRST_BYTES + 1);
  const small = envelope(1024);

  it('never decrypts a large envelope whose signature fails', async () => {
    const { backend, decryptions } = counting();
    const forged = flipByte(large, large.length - 10);
    const err = await catchCryptoAsync(
      openAsync(forged, { ...options, senderKey: sender.signing.publicKey, backend }),
    );
    expect([err.code, err.reason, decryptions()]).toEqual(['DECRYPT_FAILURE', 'signature', 0]);
    const wrongKey = await catchCryptoAsync(
      openAsync(large, { ...options, senderKey: generateKeys().signing.publicKey, backend }),
    );
    expect([wrongKey.reason, decryptions()]).toEqual(['signature', 0]);
  });

  it('opens an honest large envelope (two decryptions: wrap and content) on every path', async () => {
    const { backend, decryptions } = counting();
    const opened = await openAsync(large, { ...options, senderKey: sender.signing.publicKey, backend });
    expect([(opened.payload['text'] as string).length, decryptions()]).toEqual([
      OPEN_VERIFY_FIRST_BYTES + 1,
      2,
    ]);
    const viaNoble = await openAsync(large, {
      ...options,
      senderKey: sender.signing.publicKey,
      backend: nobleBackend,
    });
    expect(viaNoble.payload).toEqual(opened.payload);
  });

  it('small envelopes keep the overlapped path and the same failure reason', async () => {
    const { backend, decryptions } = counting();
    const forged = flipByte(small, small.length - 10);
    const err = await catchCryptoAsync(
      openAsync(forged, { ...options, senderKey: sender.signing.publicKey, backend }),
    );
    expect([err.reason, decryptions()]).toEqual(['signature', 2]);
  });
});
