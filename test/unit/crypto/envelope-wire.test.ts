import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64, utf8 } from '../../../packages/sdk/src/core/encoding.js';
import { decodeBase64Strict, decodeEnvelopeInput } from '../../../packages/sdk/src/crypto/envelope-wire.js';
import { catchCrypto } from './helpers.js';

/** Strings near base64: valid encodings with a few characters replaced, inserted or removed. */
const nearBase64 = fc
  .tuple(
    fc.uint8Array({ maxLength: 40 }),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom('=', 'A', '-', '_', ' ', '\n', '+', '/', 'é', ''))),
  )
  .map(([bytes, edits]) => {
    let s = toBase64(bytes);
    for (const [pos, ch] of edits) {
      const i = s.length === 0 ? 0 : pos % (s.length + 1);
      s = s.slice(0, i) + ch + s.slice(i + (ch === '' ? 1 : 0));
    }
    return s;
  });

describe('decodeBase64Strict', () => {
  it('round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        expect(decodeBase64Strict(toBase64(b))).toEqual(b);
      }),
    );
  });

  it('agrees with the strict portable decoder on arbitrary and near-base64 strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), nearBase64, fc.stringMatching(/^[A-Za-z0-9+/=_-]{0,12}$/)), (s) => {
        const ours = decodeBase64Strict(s);
        const reference = fromBase64(s);
        expect(ours === undefined ? undefined : Uint8Array.from(ours)).toEqual(reference);
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects non-canonical trailing bits, missing padding and other alphabets', () => {
    expect(decodeBase64Strict('QQ==')).toEqual(Uint8Array.of(0x41));
    expect(decodeBase64Strict('QR==')).toBeUndefined();
    expect(decodeBase64Strict('QQ')).toBeUndefined();
    expect(decodeBase64Strict('-_8=')).toBeUndefined();
    expect(decodeBase64Strict('QQ==QQ==')).toBeUndefined();
  });
});

describe('decodeEnvelopeInput', () => {
  const raw = Uint8Array.of(0x41, 0x4d, 0x53, 0x45, 1, 2, 3);
  it('returns raw envelope bytes as they are and decodes base64 text bytes', () => {
    expect(decodeEnvelopeInput(raw, 100)).toBe(raw);
    expect(decodeEnvelopeInput(toBase64(raw), 100)).toEqual(raw);
    expect(decodeEnvelopeInput(utf8(toBase64(raw)), 100)).toEqual(raw);
  });

  it('applies the cap to the input as received', () => {
    const text = toBase64(raw);
    expect(decodeEnvelopeInput(text, text.length)).toEqual(raw);
    expect(catchCrypto(() => decodeEnvelopeInput(text, text.length - 1)).code).toBe('INVALID_ENVELOPE');
    expect(catchCrypto(() => decodeEnvelopeInput(raw, raw.length - 1)).code).toBe('INVALID_ENVELOPE');
  });

  it('rejects anything else with INVALID_ENVELOPE', () => {
    for (const bad of ['QQ', Uint8Array.of(0xff, 0xfe), 5, null, {}, ['QQ==']]) {
      expect(catchCrypto(() => decodeEnvelopeInput(bad, 100)).code).toBe('INVALID_ENVELOPE');
    }
  });
});
