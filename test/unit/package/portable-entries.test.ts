import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The entries docs/runtimes.md promises on Cloudflare Workers (and any Web runtime)
// must reach no Node built-in through a static import: a bundler targeting Workers
// fails on one (.ci/runtimes.sh bundles them for workerd). node:crypto, node:fs and
// node:path are reached through process.getBuiltinModule at first use instead.
const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const PORTABLE_ENTRIES = [
  'packages/sdk/src/crypto/index.ts',
  'packages/sdk/src/webhook/index.ts',
  'packages/sdk/src/webhook/fetch.ts',
];
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Value (non-type) import and re-export specifiers of a module. */
function valueImports(source: string): string[] {
  const specs: string[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?([^;'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(re)) {
    if (m[2] === undefined) specs.push(m[4]!);
  }
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]!);
  return specs;
}

/** Every Node built-in reached from `entry` by value imports, with the importing file. */
function builtinsReached(entry: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of valueImports(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (builtins.has(spec)) found.push(`${file.slice(root.length + 1)} imports ${spec}`);
    }
  };
  visit(resolve(root, entry));
  return found;
}

describe('entries that run on Workers', () => {
  it.each(PORTABLE_ENTRIES)('%s reaches no Node built-in through a static import', (entry) => {
    expect(builtinsReached(entry)).toEqual([]);
  });

  it('the check sees a static built-in import (the Node adapter has one)', () => {
    expect(valueImports("import { x } from 'node:fs';\nimport type { Y } from 'node:net';")).toEqual([
      'node:fs',
    ]);
    expect(builtinsReached('packages/dev/src/testing/index.ts').length).toBeGreaterThan(0);
  });
});
