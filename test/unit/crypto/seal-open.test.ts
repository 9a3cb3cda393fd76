import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { fromBase64, utf8 } from '../../../packages/sdk/src/core/encoding.js';
import { isConfigurationError, isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import { parseEnvelope } from '../../../packages/sdk/src/crypto/envelope-format.js';
import { ENVELOPE_REF_MAX_BYTES } from '../../../packages/sdk/src/crypto/envelope-wire.js';
import { generateKeys, keyFingerprint } from '../../../packages/sdk/src/crypto/keys.js';
import { open, openAsync } from '../../../packages/sdk/src/crypto/open.js';
import { seal, sealAsync, sealBytes } from '../../../packages/sdk/src/crypto/seal.js';
import { portableBackend } from '../../../packages/sdk/src/crypto/backend/portable.js';
import { backends, catchCrypto, parties, sealOptionsFor } from './helpers.js';

const text = (n: number) => ({ type: 'text', text: 'x'.repeat(n) });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('seal / open round trips', () => {
  it.each([1, 2, 3, 5, 10])('%i recipient(s): each opens the same payload and metadata', async (n) => {
    const p = parties(n);
    const options = sealOptionsFor(p);
    const payload = { type: 'text', text: `hello ${n}`, extra: { nested: [1, 'two', null] } };
    const wire = seal(payload, options);
    for (const [i, r] of p.recipients.entries()) {
      const got = open(wire, {
        recipientId: `recipient-${i}`,
        keys: r,
        senderKey: p.sender.signing.publicKey,
      });
      expect(got.payload).toEqual(payload);
      expect(got.senderId).toBe('agent-sender');
      expect(got.conversationId).toBe('conv-1');
      expect(got.keyFingerprint).toBe(keyFingerprint(r.encryption.publicKey));
      expect(got.recipients.map((x) => x.id)).toEqual(p.recipients.map((_, j) => `recipient-${j}`));
      expect(got.version).toBe('1.1');
      expect(got.eventType).toBe('message.new');
    }
    for (const backend of backends) {
      const sealed = await sealAsync(payload, { ...options, backend });
      const last = p.recipients.length - 1;
      const got = await openAsync(sealed, {
        recipientId: `recipient-${last}`,
        keys: p.recipients[last]!,
        senderKey: async () => p.sender.signing.publicKey,
        backend,
      });
      expect(got.payload).toEqual(payload);
    }
  });

  it.each([0, 1024, 65_536, 1_048_576])('payload text of %i bytes round-trips (ref cap)', async (size) => {
    const p = parties(1);
    const payload = text(size);
    const wire = seal(payload, sealOptionsFor(p));
    const options = {
      recipientId: 'recipient-0',
      keys: p.recipients[0]!,
      senderKey: p.sender.signing.publicKey,
      maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES,
    };
    expect(open(wire, options).payload).toEqual(payload);
    expect((await openAsync(wire, { ...options, backend: portableBackend })).payload).toEqual(payload);
  });

  it('rejects an over-1 MB envelope under the default inline cap, but opens it under the ref cap', () => {
    const p = parties(1);
    const wire = seal(text(1_200_000), sealOptionsFor(p));
    const options = {
      recipientId: 'recipient-0',
      keys: p.recipients[0]!,
      senderKey: p.sender.signing.publicKey,
    };
    expect(catchCrypto(() => open(wire, options)).code).toBe('INVALID_ENVELOPE');
    expect(open(wire, { ...options, maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES }).payload).toEqual(
      text(1_200_000),
    );
  });

  it('accepts raw envelope bytes and base64 text bytes (ref objects)', () => {
    const p = parties(1);
    const bytes = sealBytes({ type: 'text', text: 'raw' }, sealOptionsFor(p));
    const options = {
      recipientId: 'recipient-0',
      keys: p.recipients[0]!,
      senderKey: p.sender.signing.publicKey,
    };
    expect(open(bytes, options).payload).toEqual({ type: 'text', text: 'raw' });
    const wire = seal({ type: 'text', text: 'b64' }, sealOptionsFor(p));
    expect(open(utf8(wire), options).payload).toEqual({ type: 'text', text: 'b64' });
  });

  it('opens with a retired key during the grace period, whatever the candidate order', () => {
    const sender = generateKeys();
    const current = generateKeys();
    const retired = generateKeys();
    const wire = seal(text(10), {
      sender: { id: 's', ...sender },
      recipients: [{ id: 'agent-1', publicKey: retired.encryption.publicKey }],
      conversationId: 'c',
    });
    const got = open(wire, {
      recipientId: 'agent-1',
      keys: [current.encryption, retired.encryption],
      senderKey: (id) => (id === 's' ? sender.signing.publicKey : undefined),
    });
    expect(got.keyFingerprint).toBe(keyFingerprint(retired.encryption.publicKey));
    const err = catchCrypto(() =>
      open(wire, { recipientId: 'agent-1', keys: current, senderKey: sender.signing.publicKey }),
    );
    expect(err.reason).toBe('no_wrap');
  });

  it('defaults messageId to a UUID v4 and createdAt to the clock', () => {
    const p = parties(1);
    const clock = new ManualClock(Date.parse('2030-05-06T07:08:09.010Z'));
    const env = parseEnvelope(fromBase64(seal(text(1), { ...sealOptionsFor(p), clock }))!);
    expect(env.header.createdAt).toBe('2030-05-06T07:08:09.010Z');
    expect(env.header.messageId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const dated = seal(text(1), {
      ...sealOptionsFor(p),
      createdAt: new Date(Date.UTC(2024, 1, 29)),
      messageId: 'm-1',
    });
    const h = parseEnvelope(fromBase64(dated)!).header;
    expect([h.createdAt, h.messageId]).toEqual(['2024-02-29T00:00:00.000Z', 'm-1']);
  });

  it('never repeats ephemeral keys, content nonces or ciphertexts', () => {
    const p = parties(1);
    const a = parseEnvelope(sealBytes(text(5), sealOptionsFor(p)));
    const b = parseEnvelope(sealBytes(text(5), sealOptionsFor(p)));
    expect(a.header.ephemeralPublicKey).not.toEqual(b.header.ephemeralPublicKey);
    expect(a.nonce).not.toEqual(b.nonce);
    expect(a.ciphertext).not.toEqual(b.ciphertext);
  });
});

describe('backends interoperate', () => {
  it('what one backend seals, every other opens', async () => {
    const p = parties(2);
    const payload = { type: 'text', text: 'interop ✓' };
    const sealed = [seal(payload, sealOptionsFor(p))];
    for (const backend of backends) sealed.push(await sealAsync(payload, { ...sealOptionsFor(p), backend }));
    for (const wire of sealed) {
      const options = {
        recipientId: 'recipient-1',
        keys: p.recipients[1]!,
        senderKey: p.sender.signing.publicKey,
      };
      expect(open(wire, options).payload).toEqual(payload);
      for (const backend of backends)
        expect((await openAsync(wire, { ...options, backend })).payload).toEqual(payload);
    }
  });
});

describe('seal validation', () => {
  const p = parties(2);
  const base = sealOptionsFor(p);
  const pk = p.recipients[0]!.encryption.publicKey;
  const cases: [string, () => unknown][] = [
    ['no recipients', () => seal(text(1), { ...base, recipients: [] })],
    [
      'too many recipients',
      () =>
        seal(text(1), {
          ...base,
          recipients: Array.from({ length: 1025 }, (_, i) => ({ id: `r${i}`, publicKey: pk })),
        }),
    ],
    [
      'short recipient key',
      () => seal(text(1), { ...base, recipients: [{ id: 'r', publicKey: pk.subarray(1) }] }),
    ],
    [
      'low-order recipient key',
      () => seal(text(1), { ...base, recipients: [{ id: 'r', publicKey: new Uint8Array(32) }] }),
    ],
    [
      'duplicate recipient',
      () =>
        seal(text(1), {
          ...base,
          recipients: [
            { id: 'r', publicKey: pk },
            { id: 'r', publicKey: pk },
          ],
        }),
    ],
    ['empty recipient id', () => seal(text(1), { ...base, recipients: [{ id: '', publicKey: pk }] })],
    ['256-byte conversation id', () => seal(text(1), { ...base, conversationId: 'é'.repeat(128) })],
    ['bad createdAt', () => seal(text(1), { ...base, createdAt: '2025-01-01T00:00:00Z' })],
    ['impossible createdAt', () => seal(text(1), { ...base, createdAt: '2025-02-30T00:00:00.000Z' })],
    ['invalid Date', () => seal(text(1), { ...base, createdAt: new Date(Number.NaN) })],
    ['array payload', () => seal([] as never, base)],
    ['null payload', () => seal(null as never, base)],
    ['BigInt in payload', () => seal({ type: 'x', n: 1n }, base)],
    [
      'bad signing key',
      () =>
        seal(text(1), {
          ...base,
          sender: { id: 's', signing: { publicKey: pk, privateKey: new Uint8Array(3) } },
        }),
    ],
    ['over the size cap', () => seal(text(2000), { ...base, maxEnvelopeBytes: 1000 })],
  ];
  it.each(cases)('%s → ValidationError', (_name, fn) => {
    const err = thrown(fn);
    expect(isValidationError(err)).toBe(true);
    expect((err as Error).message).not.toMatch(/[A-Za-z0-9+/]{40,}/);
  });

  it('refuses an async-only backend in the sync API with a ConfigurationError', () => {
    expect(
      isConfigurationError(thrown(() => seal(text(1), { ...base, backend: portableBackend as never }))),
    ).toBe(true);
  });
});

describe('open validation', () => {
  const p = parties(1);
  const wire = seal(text(1), sealOptionsFor(p));
  const ok = { recipientId: 'recipient-0', keys: p.recipients[0]!, senderKey: p.sender.signing.publicKey };
  it.each([
    ['empty recipientId', { ...ok, recipientId: '' }],
    ['no keys', { ...ok, keys: [] }],
    ['short key', { ...ok, keys: { publicKey: new Uint8Array(31), privateKey: new Uint8Array(32) } }],
    ['zero cap', { ...ok, maxEnvelopeBytes: 0 }],
  ] as const)('%s → ValidationError before the input is read', (_name, options) => {
    expect(isValidationError(thrown(() => open('not base64!', options as never)))).toBe(true);
    expect(isValidationError(thrown(() => open(wire, options as never)))).toBe(true);
  });
});
