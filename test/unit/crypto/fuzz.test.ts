import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { open, openAsync } from '../../../packages/sdk/src/crypto/open.js';
import { sealBytes } from '../../../packages/sdk/src/crypto/seal.js';
import { resign } from '../../fixtures/envelope/tamper.js';
import { expectEnvelopeError, parties, sealOptionsFor } from './helpers.js';

const p = parties(3);
const options = { recipientId: 'recipient-1', keys: p.recipients[1]!, senderKey: p.sender.signing.publicKey };
const payload = { type: 'text', text: 'fuzz me' };
const good = sealBytes(payload, sealOptionsFor(p));

type Mutation =
  | { kind: 'set'; at: number; value: number }
  | { kind: 'insert'; at: number; value: number }
  | { kind: 'delete'; at: number }
  | { kind: 'truncate'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.nat(255) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), value: fc.nat(255) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

function mutate(bytes: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let b = Array.from(bytes);
  for (const m of mutations) {
    const at = b.length === 0 ? 0 : m.at % b.length;
    if (m.kind === 'set') b[at] = m.value;
    else if (m.kind === 'insert') b.splice(at, 0, m.value);
    else if (m.kind === 'delete') b.splice(at, 1);
    else b = b.slice(0, at);
  }
  return Uint8Array.from(b);
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Opens sync and async; either both succeed with the original payload, or both fail with a typed error. */
async function check(input: string | Uint8Array, mayOpen: boolean): Promise<void> {
  let syncResult: unknown;
  let syncError: unknown;
  try {
    syncResult = open(input, options).payload;
  } catch (err) {
    syncError = err;
  }
  const asyncOutcome = await openAsync(input, options).then(
    (r) => ({ ok: r.payload as unknown }),
    (err: unknown) => ({ err }),
  );
  if (syncError === undefined) {
    expect(mayOpen).toBe(true);
    expect(syncResult).toEqual(payload);
    expect(asyncOutcome).toEqual({ ok: payload });
  } else {
    expectEnvelopeError(syncError);
    expect('err' in asyncOutcome).toBe(true);
    expectEnvelopeError((asyncOutcome as { err: unknown }).err);
  }
}

describe('open never lets anything but a typed error escape', () => {
  it('on random strings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.base64String(), fc.string({ unit: 'binary' })), (s) =>
        check(s, false),
      ),
      { numRuns: 300 },
    );
  });

  it('on random bytes, raw or behind the envelope magic', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), fc.boolean(), (tail, magic) => {
        const input = magic ? Uint8Array.from([0x41, 0x4d, 0x53, 0x45, 1, 0, 1, 0, ...tail]) : tail;
        return check(toBase64(input), false);
      }),
      { numRuns: 300 },
    );
  });

  it('on mutated envelopes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), (ms) => {
        const bad = mutate(good, ms);
        return check(toBase64(bad), same(bad, good));
      }),
      { numRuns: 300 },
    );
  });

  it('on mutated envelopes re-signed by the sender (reaching the later checks)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), (ms) => {
        const bad = mutate(good, ms);
        if (bad.length < 64) return check(toBase64(bad), false);
        // Another recipient's wrap is only covered by the signature, which the sender re-made:
        // such an envelope may open, and must then give the original payload.
        return check(toBase64(resign(bad, p.sender.signing)), true);
      }),
      { numRuns: 300 },
    );
  });
});
