import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AgentTokenSchema,
  BASE62_ALPHABET,
  generateAgentToken,
  isAgentToken,
} from '../../../../packages/sdk/src/core/protocol/index.js';
import { ConfigurationError } from '../../../../packages/sdk/src/core/errors/index.js';

const base62 = fc.constantFrom(...BASE62_ALPHABET.split(''));

describe('agent token', () => {
  it('accepts hsk_ + exactly 40 base62 characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: base62, minLength: 40, maxLength: 40 }), (rest) => {
        expect(isAgentToken(`hsk_${rest}`)).toBe(true);
        expect(AgentTokenSchema.safeParse(`hsk_${rest}`).success).toBe(true);
      }),
    );
  });

  it('rejects other lengths, prefixes and alphabets (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: base62, maxLength: 60 }).filter((s) => s.length !== 40),
        (rest) => {
          expect(isAgentToken(`hsk_${rest}`)).toBe(false);
        },
      ),
    );
    const ok = 'A'.repeat(40);
    for (const bad of [
      `HSK_${ok}`,
      `hsk-${ok}`,
      `hsk_${ok.slice(1)}_`,
      `hsk_${ok.slice(1)}+`,
      ` hsk_${ok}`,
      `hsk_${ok}\n`,
    ]) {
      expect(isAgentToken(bad)).toBe(false);
    }
    expect(isAgentToken(undefined)).toBe(false);
    expect(isAgentToken(42)).toBe(false);
  });

  it('does not quote a rejected token in the issue', () => {
    const almost = 'hsk_' + 'x'.repeat(39) + '!';
    const result = AgentTokenSchema.safeParse(almost);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues.map((i) => i.message))).not.toContain(almost);
  });

  it('generates valid, different tokens from random bytes', () => {
    const rand = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
    const a = generateAgentToken(rand);
    const b = generateAgentToken(rand);
    expect(isAgentToken(a)).toBe(true);
    expect(isAgentToken(b)).toBe(true);
    expect(a).not.toBe(b);
  });

  it('skips biased bytes (>= 248) and draws more as needed', () => {
    let calls = 0;
    const source = (n: number): Uint8Array => {
      calls++;
      // First draw: only unusable bytes; then a fixed usable pattern.
      return calls === 1 ? new Uint8Array(n).fill(250) : new Uint8Array(n).map((_, i) => i);
    };
    const token = generateAgentToken(source);
    expect(token).toBe('hsk_' + BASE62_ALPHABET.slice(0, 40));
    expect(calls).toBe(2);
  });

  it('fails with ConfigurationError when the source never yields usable bytes', () => {
    expect(() => generateAgentToken((n) => new Uint8Array(n).fill(255))).toThrow(ConfigurationError);
    expect(() => generateAgentToken(() => new Uint8Array(0))).toThrow(ConfigurationError);
  });
});
