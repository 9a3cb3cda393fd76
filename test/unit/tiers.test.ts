/**
 * Every test file is in exactly one tier of test/tiers.ts (the Node-sensitive tier runs on
 * every Node CI tests, the rest once), and every entry of a tier matches a test file, so a
 * moved folder cannot leave a stale entry behind. vitest's own projects (vitest.config.ts) are
 * built from the same lists; the last test checks that they select the same files.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED, TIERS, covers, excludeOf, includeOf, tiersOf, type TierName } from '../tiers.js';

const root = join(import.meta.dirname, '..', '..');

function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.test.ts') ? [path] : [];
  });
}

// The tests beside the examples too (examples/ai-sdk-agent.test.ts, printed by docs/ai-sdk.md).
const files = [...testFiles('test'), ...testFiles('examples')].sort();
const names = Object.keys(TIERS) as TierName[];

describe('test tiers (test/tiers.ts)', () => {
  it('finds the test files', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('test/unit/tiers.test.ts');
  });

  it('puts every test file in exactly one tier', () => {
    const wrong = files
      .map((f) => ({ file: f, tiers: tiersOf(f) }))
      .filter(({ tiers }) => tiers.length !== 1)
      .map(({ file, tiers }) => `${file}: ${tiers.length === 0 ? 'no tier' : tiers.join(' and ')}`);
    expect(wrong, 'add each file (or its folder) to one tier of test/tiers.ts').toEqual([]);
  });

  it('has no entry that matches no test file, and no entry twice', () => {
    const paths = names.flatMap((n) => TIERS[n].paths);
    expect(paths.filter((p) => !files.some((f) => covers(p, f)))).toEqual([]);
    expect(paths.filter((p, i) => paths.indexOf(p) !== i)).toEqual([]);
  });

  it('has a Node-sensitive tier and a run-once tier, both non-empty', () => {
    expect(names.sort()).toEqual(['node', 'once']);
    for (const n of names) expect(files.filter((f) => tiersOf(f)[0] === n).length).toBeGreaterThan(10);
  });

  it('lists as isolated only test files that exist, each once', () => {
    expect(ISOLATED.filter((f) => !files.includes(f))).toEqual([]);
    expect(ISOLATED.filter((f, i) => ISOLATED.indexOf(f) !== i)).toEqual([]);
  });

  it("gives vitest's projects the same files (their include and exclude globs)", () => {
    // A glob of the config as vitest reads it: `**/` any folders, `*` within one path segment.
    const matches = (glob: string, file: string): boolean =>
      new RegExp(
        `^${glob
          .split('**/')
          .map((part) =>
            part
              .split('**')
              .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
              .join('.*'),
          )
          .join('(?:.*/)?')}$`,
      ).test(file);
    for (const n of names) {
      const selected = files.filter(
        (f) => includeOf(n).some((g) => matches(g, f)) && !excludeOf(n).some((g) => matches(g, f)),
      );
      expect(selected, n).toEqual(files.filter((f) => tiersOf(f)[0] === n));
    }
  });
});
