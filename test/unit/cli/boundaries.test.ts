import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../../../packages/dev/src/cli');
const SRC = resolve(CLI, '..');
/** The package's public entries: the only library modules the CLI may import. */
const PUBLIC = ['index.ts', 'crypto/index.ts', 'webhook/index.ts', 'testing/index.ts'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('src/cli', () => {
  it('imports the library only through its public entries (and nothing outside the package)', () => {
    const offending: string[] = [];
    for (const file of files(CLI)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
        const target = resolve(file, '..', m[1]!).replace(/\.js$/, '.ts');
        const rel = relative(SRC, target);
        const ok = rel.startsWith('cli/') || PUBLIC.includes(rel) || rel === '../package.json';
        if (!ok) offending.push(`${relative(SRC, file)} → ${m[1]}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
