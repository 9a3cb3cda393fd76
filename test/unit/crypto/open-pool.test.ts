/**
 * The open pool with real worker threads (from the sources, through the tsx
 * loader): the same results and the same typed errors as `openAsync`, keys
 * sent once and again after a change, no envelope lost when a worker dies,
 * no thread for a trickle, threads for a burst, and the calling thread when
 * a custom backend is asked for.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { toBase64, utf8 } from '../../../packages/sdk/src/core/encoding.js';
import { CryptoError } from '../../../packages/sdk/src/core/errors/index.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import { open, openAsync } from '../../../packages/sdk/src/crypto/open.js';
import type { OpenAsyncOptions } from '../../../packages/sdk/src/crypto/open-options.js';
import { sealBytes, sealPlaintext } from '../../../packages/sdk/src/crypto/seal.js';
import { portableBackend } from '../../../packages/sdk/src/crypto/backend/portable.js';
import { OpenWorkerPool, type OpenWorkerHandle } from '../../../packages/sdk/src/crypto/open-pool/pool.js';
import { peekSenderId } from '../../../packages/sdk/src/crypto/open-pool/peek.js';
import { flipByte, offsets, resign } from '../../fixtures/envelope/tamper.js';
import { catchCryptoAsync, parties, sealOptionsFor } from './helpers.js';

const p = parties(2);
const SENDER = 'agent-sender';
const me = p.recipients[0]!;
const base = { recipientId: 'recipient-0', keys: me };
const options: OpenAsyncOptions = {
  ...base,
  senderKey: (id) => (id === SENDER ? p.sender.signing.publicKey : undefined),
};
const sealText = (text: string): Uint8Array => sealBytes({ type: 'text', text }, sealOptionsFor(p));
const good = sealText('hello from the pool');
const at = offsets(good);

const pools: OpenWorkerPool[] = [];
function pool(...args: ConstructorParameters<typeof OpenWorkerPool>): OpenWorkerPool {
  const made = new OpenWorkerPool(...args);
  pools.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((x) => x.close()));
});

describe('OpenWorkerPool on worker threads', () => {
  it('opens in a worker with the same result as in the thread', async () => {
    const workers = pool({ workers: 1 });
    const wire = toBase64(good);
    const [fromWorker, fromBytes] = await Promise.all([
      workers.open(wire, options),
      workers.open(good, options),
    ]);
    const inThread = open(wire, { ...base, senderKey: p.sender.signing.publicKey });
    expect(fromWorker).toEqual(inThread);
    expect(fromBytes).toEqual(inThread);
    expect(workers.stats()).toMatchObject({ workers: 1, openedInWorkers: 2, openedInThread: 0, reopened: 0 });
    // The caller's bytes stay usable (a copy was transferred, not the caller's buffer).
    expect(good.byteLength).toBeGreaterThan(0);
    expect((await workers.open(good, options)).payload).toEqual({
      type: 'text',
      text: 'hello from the pool',
    });
  });

  it('returns each DECRYPT_FAILURE reason and INVALID_ENVELOPE as the same typed error as openAsync', async () => {
    const workers = pool({ workers: 1 });
    const cases: [string | Uint8Array, OpenAsyncOptions][] = [
      [flipByte(good, at.ciphertext), options], // signature
      [good, { ...options, senderKey: generateKeys().signing.publicKey }], // signature
      [good, { ...options, senderKey: () => undefined }], // signature: unknown sender
      [good, { ...options, recipientId: 'recipient-9' }], // no_wrap
      [resign(flipByte(good, at.wraps + 3), p.sender.signing), options], // unwrap
      [resign(flipByte(good, at.ciphertext), p.sender.signing), options], // aead
      [sealPlaintext(utf8('not json'), sealOptionsFor(p)), options], // parse
      [toBase64(good).slice(0, -4) + '!!!!', options], // INVALID_ENVELOPE: bad base64
      [toBase64(flipByte(good, 5)), options], // INVALID_ENVELOPE: unknown minor version
      [
        sealBytes({ type: 'text', text: 'old' }, { ...sealOptionsFor(p), version: '1.0' }),
        {
          ...options,
          acceptLegacyV10: false,
        },
      ], // INVALID_ENVELOPE: legacy refused
    ];
    const seen: string[] = [];
    for (const [input, opts] of cases) {
      const expected = await catchCryptoAsync(openAsync(input, opts));
      const got = await catchCryptoAsync(workers.open(input, opts));
      expect(got).toBeInstanceOf(CryptoError);
      expect([got.code, got.reason, got.message]).toEqual([expected.code, expected.reason, expected.message]);
      seen.push(got.reason ?? got.code);
    }
    expect(new Set(seen)).toEqual(
      new Set(['signature', 'no_wrap', 'unwrap', 'aead', 'parse', 'INVALID_ENVELOPE']),
    );
    expect(workers.stats().openedInWorkers).toBe(cases.length);
  });

  it('loses no envelope when a worker is terminated mid-flight: they are opened again here', async () => {
    const started: OpenWorkerHandle[] = [];
    const workers = pool({ workers: 1, onWorker: (w) => void started.push(w) });
    const texts = Array.from({ length: 120 }, (_, i) => `message ${i}`);
    const wires = texts.map((t) => toBase64(sealText(t)));
    const results = Promise.all(wires.map((w) => workers.open(w, options)));
    // Let the jobs be posted (one turn of the event loop), then kill the worker that holds them.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toHaveLength(1);
    await started[0]!.terminate();
    const opened = await results;
    expect(opened.map((o) => o.payload['text'])).toEqual(texts);
    expect(workers.stats().reopened).toBeGreaterThan(0);
    expect(workers.stats().workers).toBe(0);
    // The next open starts a new worker.
    await workers.open(good, options);
    expect(started).toHaveLength(2);
    expect(workers.stats().workers).toBe(1);
  });

  it('sends the keys again after they change (a rotation) and opens with the new ones', async () => {
    const workers = pool({ workers: 1 });
    const rotated = generateKeys();
    const forRotated = sealBytes(
      { type: 'text', text: 'after rotation' },
      { ...sealOptionsFor(p), recipients: [{ id: 'recipient-0', publicKey: rotated.encryption.publicKey }] },
    );
    expect((await workers.open(good, options)).payload['text']).toBe('hello from the pool');
    const opened = await workers.open(forRotated, { ...options, keys: [rotated, me] });
    expect(opened.payload['text']).toBe('after rotation');
    // The old keys alone no longer fit the new envelope: the worker holds what it was last sent.
    const refused = await catchCryptoAsync(workers.open(forRotated, options));
    expect(refused.reason).toBe('no_wrap');
    expect(workers.stats().openedInWorkers).toBe(3);
  });

  it("'auto' opens a trickle on the calling thread and starts no thread", async () => {
    const started: OpenWorkerHandle[] = [];
    const auto = pool({ workers: 'auto', onWorker: (w) => void started.push(w) });
    for (let i = 0; i < 20; i++) await auto.open(good, options);
    // A few at once, below the threshold.
    await Promise.all(Array.from({ length: 4 }, () => auto.open(good, options)));
    expect(started).toEqual([]);
    expect(auto.stats()).toEqual({ workers: 0, openedInWorkers: 0, openedInThread: 24, reopened: 0 });
  });

  it("'auto' starts workers for a burst and uses them once they are ready", async () => {
    const auto = pool({ workers: 'auto' });
    const deadline = Date.now() + 20_000;
    while (auto.stats().openedInWorkers === 0 && Date.now() < deadline) {
      await Promise.all(Array.from({ length: 64 }, () => auto.open(good, options)));
    }
    expect(auto.stats().workers).toBeGreaterThan(0);
    expect(auto.stats().openedInWorkers).toBeGreaterThan(0);
  });

  it('opens on the calling thread with a custom backend or with workers: false', async () => {
    const withBackend = pool({ workers: 1 });
    await withBackend.open(good, { ...options, backend: portableBackend });
    expect(withBackend.stats()).toMatchObject({ workers: 0, openedInWorkers: 0, openedInThread: 1 });
    const off = pool({ workers: false });
    await Promise.all(Array.from({ length: 32 }, () => off.open(good, options)));
    expect(off.stats()).toMatchObject({ workers: 0, openedInWorkers: 0, openedInThread: 32 });
  });

  it('rejects invalid options with the same ValidationError as openAsync', async () => {
    const workers = pool({ workers: 1 });
    await expect(workers.open(good, { ...options, recipientId: '' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});

describe('peekSenderId', () => {
  it('reads the sender id of base64 text, envelope bytes and base64 bytes', () => {
    expect(peekSenderId(toBase64(good))).toBe(SENDER);
    expect(peekSenderId(good)).toBe(SENDER);
    expect(peekSenderId(utf8(toBase64(good)))).toBe(SENDER);
  });

  it('never throws on arbitrary input, and agrees with open on every envelope it can read', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.uint8Array({ maxLength: 400 })), (input) => {
        const id = peekSenderId(input);
        expect(id === undefined || typeof id === 'string').toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: good.length - 1 }), fc.integer({ min: 1, max: 255 }), (i, v) => {
        const damaged = flipByte(good, i, v);
        const id = peekSenderId(damaged);
        if (id !== undefined && id !== SENDER) {
          // A damaged header names another sender: the signature check then refuses it.
          expect(() => open(damaged, { ...base, senderKey: () => undefined })).toThrow(CryptoError);
        }
      }),
    );
  });
});
