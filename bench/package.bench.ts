/**
 * Package benchmark (`npx tsx bench/run.ts package`, after `npm run build`):
 * for each public entry of package.json `exports` (ESM build),
 *
 * 1. installed size: bytes on disk of the entry file and every chunk it
 *    imports statically (what loading it reads), and of the chunks it may
 *    import lazily; `.d.ts` and `.map` files are not counted;
 * 2. the packages its whole closure imports besides Node builtins
 *    (runtime dependencies);
 * 3. import time: median of N fresh `node -e "await import(...)"` processes
 *    minus the median of the same spawn importing an empty module (the
 *    baseline, measured in the same run, interleaved).
 *
 * Targets for `./webhook`: ≤ 15 ms import, ≤ 50 KB, no runtime dependency.
 * `BENCH_PACKAGE_SPAWNS` sets N (default 15).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, printTable } from './lib/harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SPAWNS = Number(process.env['BENCH_PACKAGE_SPAWNS'] ?? 15);
const TARGETS = { entry: './webhook', importMs: 15, bytes: 50 * 1024 } as const;

interface Closure {
  readonly staticFiles: Set<string>;
  readonly lazyFiles: Set<string>;
  readonly packages: Set<string>;
}

const STATIC_IMPORT = /(?:^|[;\n}])\s*(?:import|export)\s*(?:[^'"();]*?\sfrom\s*)?["']([^"']+)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The ESM files `file` loads statically and lazily, and the bare packages they import. */
function closureOf(file: string): Closure {
  const c: Closure = { staticFiles: new Set(), lazyFiles: new Set(), packages: new Set() };
  const visit = (path: string, lazy: boolean): void => {
    const seen = lazy ? c.lazyFiles : c.staticFiles;
    if (c.staticFiles.has(path) || seen.has(path)) return;
    seen.add(path);
    const code = readFileSync(path, 'utf8');
    const follow = (spec: string, isLazy: boolean): void => {
      if (spec.startsWith('.')) visit(resolve(dirname(path), spec), isLazy);
      else if (!isBuiltin(spec))
        c.packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    };
    for (const m of code.matchAll(STATIC_IMPORT)) follow(m[1]!, lazy);
    for (const m of code.matchAll(DYNAMIC_IMPORT)) follow(m[1]!, true);
  };
  visit(file, false);
  for (const f of c.staticFiles) c.lazyFiles.delete(f);
  return c;
}

const bytesOf = (files: Iterable<string>): number => [...files].reduce((n, f) => n + statSync(f).size, 0);

/** The ESM default file of each `exports` entry. */
function entries(): [string, string][] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: { default?: string } }>;
  };
  return Object.entries(pkg.exports).flatMap(([name, target]) =>
    typeof target === 'object' && target.import?.default !== undefined
      ? [[name, join(ROOT, target.import.default)] as [string, string]]
      : [],
  );
}

/** Wall time of one fresh `node` process that imports `url`, in ms. */
function spawnImport(url: string): number {
  const start = performance.now();
  execFileSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(url)});`], {
    stdio: 'ignore',
  });
  return performance.now() - start;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Median import time of each url minus the empty-module baseline, spawns interleaved. */
function importTimes(urls: string[]): { baselineMs: number; ms: number[] } {
  const empty = 'data:text/javascript,export{}';
  const samples = urls.map(() => [] as number[]);
  const base: number[] = [];
  for (let round = 0; round < SPAWNS; round++) {
    base.push(spawnImport(empty));
    urls.forEach((u, i) => samples[i]!.push(spawnImport(u)));
  }
  const baselineMs = median(base);
  return { baselineMs, ms: samples.map((s) => median(s) - baselineMs) };
}

export default async function (): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) {
    console.log('dist/ is missing: run `npm run build` first.');
    return;
  }
  const list = entries();
  const closures = list.map(([, file]) => closureOf(file));
  const { baselineMs, ms } = importTimes(list.map(([, file]) => pathToFileURL(file).href));
  const rows = list.map(([name], i) => {
    const c = closures[i]!;
    return [
      name,
      fmt(bytesOf(c.staticFiles) / 1024, 1),
      String(c.staticFiles.size),
      fmt(bytesOf(c.lazyFiles) / 1024, 1),
      [...c.packages].sort().join(', ') || 'none',
      fmt(ms[i]!, 1),
    ];
  });
  printTable(
    `Entries (ESM): size on disk and import time (median of ${SPAWNS} fresh processes minus an empty-import baseline of ${fmt(baselineMs, 1)} ms)`,
    ['entry', 'static KB', 'files', 'lazy KB', 'runtime dependencies', 'import ms'],
    rows,
  );
  const w = list.findIndex(([name]) => name === TARGETS.entry);
  if (w < 0) return;
  const c = closures[w]!;
  const kb = bytesOf([...c.staticFiles, ...c.lazyFiles]);
  const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  printTable(
    `Targets for ${TARGETS.entry}`,
    ['what', 'measured', 'target', 'verdict'],
    [
      [
        'import time',
        `${fmt(ms[w]!, 1)} ms`,
        `≤ ${TARGETS.importMs} ms`,
        verdict(ms[w]! <= TARGETS.importMs),
      ],
      ['size (static + lazy)', `${fmt(kb / 1024, 1)} KB`, '≤ 50 KB', verdict(kb <= TARGETS.bytes)],
      ['runtime dependencies', String(c.packages.size), '0', verdict(c.packages.size === 0)],
    ],
  );
}
