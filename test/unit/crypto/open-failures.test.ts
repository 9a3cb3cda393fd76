import { describe, expect, it } from 'vitest';
import { toBase64, utf8 } from '../../../packages/sdk/src/core/encoding.js';
import type { CryptoError } from '../../../packages/sdk/src/core/errors/index.js';
import { generateKeys, type AgentKeys } from '../../../packages/sdk/src/crypto/keys.js';
import { open, openAsync } from '../../../packages/sdk/src/crypto/open.js';
import type { OpenAsyncOptions } from '../../../packages/sdk/src/crypto/open-options.js';
import { sealBytes, sealPlaintext } from '../../../packages/sdk/src/crypto/seal.js';
import { hex } from '../../fixtures/envelope/fixed-randomness.js';
import { flipByte, offsets, resign } from '../../fixtures/envelope/tamper.js';
import {
  backends,
  catchCrypto,
  catchCryptoAsync,
  expectEnvelopeError,
  parties,
  sealOptionsFor,
} from './helpers.js';

const p = parties(2);
const me = p.recipients[0]!;
const options = { recipientId: 'recipient-0', keys: me, senderKey: p.sender.signing.publicKey };
const secretText = 'the quick secret plaintext';
const good = sealBytes({ type: 'text', text: secretText }, sealOptionsFor(p));
const at = offsets(good);

/** Opens `input` with the sync API and every async backend; all must agree on code and reason. */
async function failure(input: string | Uint8Array, opts: OpenAsyncOptions = options): Promise<CryptoError> {
  const { backend: _ignored, ...rest } = opts;
  const sync = catchCrypto(() => open(input, { ...rest, senderKey: opts.senderKey as Uint8Array }));
  for (const backend of backends) {
    const a = await catchCryptoAsync(openAsync(input, { ...rest, backend }));
    expect([a.code, a.reason]).toEqual([sync.code, sync.reason]);
  }
  return sync;
}

describe('each DECRYPT_FAILURE reason, provoked on purpose', () => {
  it('signature: tampered body, wrong sender key, unknown sender, throwing lookup', async () => {
    expect((await failure(flipByte(good, at.ciphertext))).reason).toBe('signature');
    expect((await failure(flipByte(good, at.signature + 10))).reason).toBe('signature');
    expect((await failure(good, { ...options, senderKey: generateKeys().signing.publicKey })).reason).toBe(
      'signature',
    );
    expect((await failure(good, { ...options, senderKey: new Uint8Array(5) })).reason).toBe('signature');
    const lookup = (id: string) => (id === 'someone-else' ? p.sender.signing.publicKey : undefined);
    expect((await failure(good, { ...options, senderKey: lookup })).reason).toBe('signature');
    const boom = new Error('directory down');
    const err = catchCrypto(() =>
      open(good, {
        ...options,
        senderKey: () => {
          throw boom;
        },
      }),
    );
    expect([err.reason, err.cause]).toEqual(['signature', boom]);
    const rejected = await catchCryptoAsync(
      openAsync(good, { ...options, senderKey: () => Promise.reject(boom) }),
    );
    expect([rejected.reason, rejected.cause]).toEqual(['signature', boom]);
  });

  it('signature: a sync open given an async lookup reports signature, not a crash', () => {
    const err = catchCrypto(() =>
      open(good, { ...options, senderKey: (async () => p.sender.signing.publicKey) as never }),
    );
    expect(err.reason).toBe('signature');
  });

  it('no_wrap: unlisted recipient id, or a key the envelope was not made for', async () => {
    expect((await failure(good, { ...options, recipientId: 'recipient-9' })).reason).toBe('no_wrap');
    expect((await failure(good, { ...options, keys: generateKeys() })).reason).toBe('no_wrap');
    // recipient-0's id with recipient-1's key: the fingerprint does not match that entry.
    expect((await failure(good, { ...options, keys: p.recipients[1]! })).reason).toBe('no_wrap');
  });

  it('unwrap: a re-signed envelope with a damaged wrap or a low-order ephemeral key', async () => {
    expect((await failure(resign(flipByte(good, at.wraps + 3), p.sender.signing))).reason).toBe('unwrap');
    expect((await failure(resign(flipByte(good, at.wraps + 47), p.sender.signing))).reason).toBe('unwrap');
    const ephAt = at.wraps - 2 - 2 * (1 + 'recipient-0'.length + 8) - 32;
    const zeroEph = Uint8Array.from(good);
    zeroEph.fill(0, ephAt, ephAt + 32);
    expect((await failure(resign(zeroEph, p.sender.signing))).reason).toBe('unwrap');
    // A recipient whose private key does not match the fingerprinted public key cannot unwrap.
    const wrongPrivate = {
      publicKey: me.encryption.publicKey,
      privateKey: generateKeys().encryption.privateKey,
    };
    expect((await failure(good, { ...options, keys: wrongPrivate })).reason).toBe('unwrap');
  });

  it('aead: a re-signed envelope with a damaged ciphertext, tag or nonce', async () => {
    expect((await failure(resign(flipByte(good, at.ciphertext), p.sender.signing))).reason).toBe('aead');
    expect((await failure(resign(flipByte(good, at.signature - 1), p.sender.signing))).reason).toBe('aead');
    expect((await failure(resign(flipByte(good, at.nonce), p.sender.signing))).reason).toBe('aead');
  });

  it('parse: content that is not UTF-8, not JSON, or not an object', async () => {
    for (const text of ['not json', '"a string"', '42', 'null', '[1,2]', '{"a":']) {
      expect((await failure(sealPlaintext(utf8(text), sealOptionsFor(p)))).reason).toBe('parse');
    }
    expect((await failure(sealPlaintext(Uint8Array.of(0x7b, 0xff, 0x7d), sealOptionsFor(p)))).reason).toBe(
      'parse',
    );
  });
});

describe('the order of checks', () => {
  it('reports the earliest failing check when several would fail', async () => {
    const wrapAndCt = flipByte(flipByte(good, at.wraps), at.ciphertext);
    // bad signature + unknown recipient → signature
    expect((await failure(wrapAndCt, { ...options, recipientId: 'nobody' })).reason).toBe('signature');
    // valid signature, unknown recipient, damaged wrap and ciphertext → no_wrap
    expect(
      (await failure(resign(wrapAndCt, p.sender.signing), { ...options, recipientId: 'nobody' })).reason,
    ).toBe('no_wrap');
    // damaged wrap and ciphertext → unwrap
    expect((await failure(resign(wrapAndCt, p.sender.signing))).reason).toBe('unwrap');
    // malformed structure wins over everything
    expect((await failure(flipByte(good, 4), { ...options, recipientId: 'nobody' })).code).toBe(
      'INVALID_ENVELOPE',
    );
  });
});

describe('INVALID_ENVELOPE', () => {
  const wire = toBase64(good);
  it.each([
    ['bad base64', wire.slice(0, -4) + '!!!!'],
    [
      'unpadded base64',
      toBase64(new Uint8Array(good.length + ((4 - (good.length % 3)) % 3))).replace(/=+$/, ''),
    ],
    ['whitespace', wire.slice(0, 8) + '\n' + wire.slice(8)],
    ['empty', ''],
    ['truncated header', toBase64(good.subarray(0, 30))],
    ['too short for the content', toBase64(good.subarray(0, at.ciphertext + 10))],
    ['unknown major version', toBase64(flipByte(good, 4, 0x02))],
    ['unknown minor version', toBase64(flipByte(good, 5))],
    ['unknown suite', toBase64(flipByte(good, 6))],
    ['reserved flags', toBase64(flipByte(good, 7))],
    ['bad magic', toBase64(flipByte(good, 0))],
    ['over the cap', wire + 'A'.repeat(1_048_576)],
  ])('%s', async (_name, input) => {
    expect((await failure(input)).code).toBe('INVALID_ENVELOPE');
  });

  it.each([[42], [null], [undefined], [{}], [['a']], [new Uint16Array(4)]])(
    'wrong input type %j',
    async (input) => {
      expect((await failure(input as never)).code).toBe('INVALID_ENVELOPE');
    },
  );
});

describe('single-byte flips', () => {
  it('flipping any one byte of the decoded envelope fails with a typed error (sync and async)', async () => {
    for (let i = 0; i < good.length; i++) {
      for (const mask of [0x01, 0x80]) {
        const bad = toBase64(flipByte(good, i, mask));
        let syncErr: unknown;
        try {
          open(bad, options);
        } catch (err) {
          syncErr = err;
        }
        expectEnvelopeError(syncErr);
        const asyncErr = await openAsync(bad, options).then(
          () => undefined,
          (e: unknown) => e,
        );
        expectEnvelopeError(asyncErr);
        expect((asyncErr as CryptoError).reason).toBe((syncErr as CryptoError).reason);
      }
    }
  });
});

describe('no secrets in errors', () => {
  it('error messages, params and JSON carry no key, ciphertext or plaintext bytes', async () => {
    const keys: AgentKeys[] = [p.sender, ...p.recipients];
    const secrets = keys
      .flatMap((k) => [k.encryption, k.signing])
      .flatMap((kp) => [kp.privateKey, kp.publicKey]);
    const needles = [secretText, ...secrets.flatMap((s) => [hex(s), toBase64(s), toBase64(s).slice(0, 16)])];
    const errors: CryptoError[] = [
      await failure(flipByte(good, at.ciphertext)),
      await failure(good, { ...options, recipientId: 'x' }),
      await failure(resign(flipByte(good, at.wraps), p.sender.signing)),
      await failure(resign(flipByte(good, at.ciphertext), p.sender.signing)),
      await failure(sealPlaintext(utf8(secretText), sealOptionsFor(p))),
      await failure(toBase64(good).slice(1)),
      await failure(toBase64(flipByte(good, 4))),
    ];
    for (const err of errors) {
      const text = `${err.message} ${String(err.stack)} ${JSON.stringify(err.toJSON())} ${JSON.stringify(err.params)}`;
      for (const needle of needles) expect(text).not.toContain(needle);
    }
  });
});
