import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  httpUrlOf,
  intOf,
  parseCommandArgs,
  stringsOf,
  UsageError,
} from '../../../packages/dev/src/cli/args.js';

const OPTIONS = {
  name: { type: 'string' },
  flag: { type: 'boolean' },
  many: { type: 'string', multiple: true },
} as const;

describe('parseCommandArgs', () => {
  it('parses strings, booleans, repeated options and --help', () => {
    const r = parseCommandArgs(['--name', 'x', '--flag', '--many=a', '--many', 'b'], OPTIONS);
    expect(r.values).toMatchObject({ name: 'x', flag: true });
    expect(stringsOf(r.values, 'many')).toEqual(['a', 'b']);
    expect(r.help).toBe(false);
    expect(parseCommandArgs(['-h'], OPTIONS).help).toBe(true);
  });

  it.each([[['--nope']], [['--name']], [['extra']], [['--flag=yes']]])(
    'refuses %j with a UsageError',
    (argv) => {
      expect(() => parseCommandArgs(argv, OPTIONS)).toThrow(UsageError);
    },
  );

  it('allows the declared number of positionals only', () => {
    expect(parseCommandArgs(['a'], OPTIONS, 1).positionals).toEqual(['a']);
    expect(() => parseCommandArgs(['a', 'b'], OPTIONS, 1)).toThrow(/unexpected argument 'b'/);
  });

  it('never throws anything but a UsageError, whatever the argv', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('--name', '--flag', '--many', '-h', '--'))),
        (argv) => {
          try {
            parseCommandArgs(argv, OPTIONS);
          } catch (err) {
            expect(err).toBeInstanceOf(UsageError);
          }
        },
      ),
    );
  });
});

describe('intOf', () => {
  it('accepts whole numbers in range and refuses the rest', () => {
    expect(intOf('500', '--limit', 1, 500)).toBe(500);
    expect(intOf(undefined, '--limit', 1, 500)).toBeUndefined();
    for (const bad of ['0', '501', '-1', '1.5', 'x', '', ' 5']) {
      expect(() => intOf(bad, '--limit', 1, 500)).toThrow('--limit needs a whole number from 1 to 500');
    }
  });

  it('round-trips every integer in range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65_535 }), (n) => intOf(String(n), '--port', 0, 65_535) === n),
    );
  });
});

describe('httpUrlOf', () => {
  it('accepts http(s) and refuses other schemes, garbage and credentials', () => {
    expect(httpUrlOf('http://127.0.0.1:8080/x', '--url').port).toBe('8080');
    for (const bad of ['ftp://x', 'nope', '/relative', 'http://user:pw@host/']) {
      expect(() => httpUrlOf(bad, '--url')).toThrow(UsageError);
    }
    try {
      httpUrlOf('http://user:hunter2@host/', '--url');
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });
});
