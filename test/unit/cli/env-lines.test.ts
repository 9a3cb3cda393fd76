import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatEnvLines, quoteEnvValue } from '../../../packages/dev/src/cli/env-lines.js';

describe('formatEnvLines', () => {
  it('writes NAME=value lines, skipping undefined values, quoting only when needed', () => {
    expect(formatEnvLines({ A: 'http://127.0.0.1:8080', B: undefined, C: 'a b', D: "it's" })).toBe(
      "A=http://127.0.0.1:8080\nC='a b'\nD='it'\\''s'\n",
    );
    expect(quoteEnvValue('hsk_abc+/=')).toBe('hsk_abc+/=');
  });

  it('is read back unchanged by a POSIX shell, for any printable value', () => {
    const values = fc.sample(
      fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).filter((s) => !s.includes('\0')),
      60,
    );
    const vars = Object.fromEntries(values.map((v, i) => [`V${i}`, v]));
    const script = `${formatEnvLines(vars)}${values.map((_, i) => `printf '%s\\0' "$V${i}"`).join('\n')}\n`;
    const out = execFileSync('sh', ['-c', script], { encoding: 'utf8' });
    expect(out.split('\0').slice(0, -1)).toEqual(values);
  });
});
