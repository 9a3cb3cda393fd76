/**
 * Package benchmark (`npx tsx bench/run.ts package`, after `npm run build`):
 * for each public entry of package.json `exports` (ESM build),
 *
 * 1. installed size: bytes on disk of the entry file and every chunk it
 *    imports statically (what loading it reads), and of the chunks it may
 *    import lazily; `.d.ts` and `.map` files are not counted;
 * 2. the packages its whole closure imports besides Node builtins
 *    (runtime dependencies): loaded with the entry, and only on first use
 *    (reached through `import()` alone, such as undici and ws);
 * 3. import time, median of N fresh processes: timed inside the process
 *    after an empty module file was imported, as an application would see it
 *    (baseline: an empty module file, same way, interleaved); and, noisier,
 *    the whole process's wall time minus that of one importing an empty
 *    module. The target's verdict uses the first, raw (no subtraction).
 *
 * Baselines measured the same way in the same rounds, and printed beside the
 * main entry: an empty module file, and grammY's main entry (`grammy`, a root
 * devDependency pinned exactly: the Telegram bot framework a bot author
 * compares us with), with the median of the per-round ratios.
 *
 * Targets: for `./webhook`, ≤ 15 ms import, ≤ 50 KB, no runtime dependency;
 * for the main entry (issue #23), an import no slower than grammY's main entry.
 * `BENCH_PACKAGE_SPAWNS` sets N (default 15).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, printTable } from './lib/harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'sdk');
const SPAWNS = Number(process.env['BENCH_PACKAGE_SPAWNS'] ?? 15);
const TARGETS = { entry: './webhook', importMs: 15, bytes: 50 * 1024 } as const;
/** grammY's main entry, as `import 'grammy'` resolves it on Node (a CommonJS file). */
const GRAMMY = createRequire(import.meta.url).resolve('grammy');
const GRAMMY_VERSION = (
  JSON.parse(readFileSync(join(dirname(GRAMMY), '..', 'package.json'), 'utf8')) as { version: string }
).version; // grammy/out/mod.js; its exports do not include ./package.json

interface Closure {
  readonly staticFiles: Set<string>;
  readonly lazyFiles: Set<string>;
  /** Packages imported by the files loaded with the entry (statically). */
  readonly packages: Set<string>;
  /** Packages imported only on first use (`import()`), not with the entry. */
  readonly lazyPackages: Set<string>;
}

// `from` may follow `}` or `*` directly (`import{a}from"./x.js"` in minified output).
const STATIC_IMPORT = /(?:^|[;\n}])\s*(?:import|export)\s*(?:[^'"();]*?[\s}*]from\s*)?["']([^"']+)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The ESM files `file` loads statically and lazily, and the bare packages they import. */
function closureOf(file: string): Closure {
  const c: Closure = {
    staticFiles: new Set(),
    lazyFiles: new Set(),
    packages: new Set(),
    lazyPackages: new Set(),
  };
  const visit = (path: string, lazy: boolean): void => {
    const seen = lazy ? c.lazyFiles : c.staticFiles;
    if (c.staticFiles.has(path) || seen.has(path)) return;
    seen.add(path);
    const code = readFileSync(path, 'utf8');
    const follow = (spec: string, isLazy: boolean): void => {
      if (spec.startsWith('.')) visit(resolve(dirname(path), spec), isLazy);
      else if (!isBuiltin(spec))
        (isLazy ? c.lazyPackages : c.packages).add(
          spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!,
        );
    };
    for (const m of code.matchAll(STATIC_IMPORT)) follow(m[1]!, lazy);
    for (const m of code.matchAll(DYNAMIC_IMPORT)) follow(m[1]!, true);
  };
  visit(file, false);
  for (const f of c.staticFiles) c.lazyFiles.delete(f);
  for (const p of c.packages) c.lazyPackages.delete(p);
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

/**
 * Import time of `url` measured inside one fresh `node` process, in ms: an
 * empty module file is imported first (so the ESM loader, file loading
 * included, is up, as it is in any application), then `url` is timed with
 * `performance.now()`.
 */
function inProcessImport(url: string, warmUrl: string): number {
  const code =
    `await import(${JSON.stringify(warmUrl)});` +
    `const t = performance.now(); await import(${JSON.stringify(url)});` +
    'process.stdout.write(String(performance.now() - t));';
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }));
}

/**
 * Per url, interleaved over SPAWNS rounds: the median in-process import time
 * (beside the baseline: an empty module file imported the same way), and
 * the median wall time of a whole process importing it minus that of one
 * importing an empty module.
 */
function importTimes(urls: string[]): {
  baselineMs: number;
  spawnBaselineMs: number;
  ms: number[];
  spawnMs: number[];
  /** Each url's in-process samples, one per round (rounds interleave every url). */
  samples: number[][];
} {
  const empty = 'data:text/javascript,export{}';
  const dir = mkdtempSync(join(tmpdir(), 'ams-import-'));
  writeFileSync(join(dir, 'warm.mjs'), 'export {};\n');
  writeFileSync(join(dir, 'other.mjs'), 'export {};\n');
  const warm = pathToFileURL(join(dir, 'warm.mjs')).href;
  const other = pathToFileURL(join(dir, 'other.mjs')).href;
  const inProc = urls.map(() => [] as number[]);
  const spawned = urls.map(() => [] as number[]);
  const base: number[] = [];
  const spawnBase: number[] = [];
  for (let round = 0; round < SPAWNS; round++) {
    base.push(inProcessImport(other, warm));
    spawnBase.push(spawnImport(empty));
    urls.forEach((u, i) => {
      inProc[i]!.push(inProcessImport(u, warm));
      spawned[i]!.push(spawnImport(u));
    });
  }
  rmSync(dir, { recursive: true, force: true });
  const baselineMs = median(base);
  const spawnBaselineMs = median(spawnBase);
  return {
    baselineMs,
    spawnBaselineMs,
    ms: inProc.map((s) => median(s)),
    spawnMs: spawned.map((s) => median(s) - spawnBaselineMs),
    samples: inProc,
  };
}

export default async function (): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) {
    console.log('dist/ is missing: run `npm run build` first.');
    return;
  }
  const list = entries();
  const closures = list.map(([, file]) => closureOf(file));
  const measured = importTimes([
    ...list.map(([, file]) => pathToFileURL(file).href),
    pathToFileURL(GRAMMY).href,
  ]);
  const { baselineMs, spawnBaselineMs, ms, spawnMs, samples } = measured;
  const g = list.length; // grammY's index in the measured lists
  const rows = list.map(([name], i) => {
    const c = closures[i]!;
    return [
      name,
      fmt(bytesOf(c.staticFiles) / 1024, 1),
      String(c.staticFiles.size),
      fmt(bytesOf(c.lazyFiles) / 1024, 1),
      [...c.packages].sort().join(', ') || 'none',
      [...c.lazyPackages].sort().join(', ') || '—',
      fmt(ms[i]!, 1),
      fmt(spawnMs[i]!, 1),
    ];
  });
  printTable(
    `Entries (ESM): size on disk and import time, median of ${SPAWNS} fresh processes each. "import ms": timed inside the process after an empty module file was imported (the loader is up, as in any app); baseline: an empty module file takes ${fmt(baselineMs, 1)} ms the same way. "process Δ ms": whole-process wall time minus a process importing an empty module (${fmt(spawnBaselineMs, 1)} ms); noisier`,
    [
      'entry',
      'static KB',
      'files',
      'lazy KB',
      'runtime dependencies',
      'on first use',
      'import ms',
      'process Δ ms',
    ],
    rows,
  );
  // The main entry beside its two baselines, same rounds; the ratio is the median of per-round ratios.
  const main = list.findIndex(([name]) => name === '.');
  const ratio = (i: number): number => median(samples[i]!.map((x, round) => x / samples[g]![round]!));
  const beside = [
    ['empty module (`export {}`)', fmt(baselineMs, 1), '—', '—'],
    [`grammY ${GRAMMY_VERSION} (\`grammy\`)`, fmt(ms[g]!, 1), fmt(spawnMs[g]!, 1), '1.00×'],
    ...(main < 0
      ? []
      : [
          ['agent-messaging-sdk (`.`)', fmt(ms[main]!, 1), fmt(spawnMs[main]!, 1), `${fmt(ratio(main), 2)}×`],
        ]),
  ];
  printTable(
    `Main entry beside the baselines (same ${SPAWNS} rounds; "× grammY": median of the per-round ratios of "import ms")`,
    ['module', 'import ms', 'process Δ ms', '× grammY'],
    beside,
  );
  if (main >= 0) {
    printTable(
      'Target for the main entry (issue #23)',
      ['what', 'measured', 'target', 'verdict'],
      [
        [
          'import time',
          `${fmt(ms[main]!, 1)} ms (${fmt(ratio(main), 2)}× grammY)`,
          `≤ grammY's main entry (${fmt(ms[g]!, 1)} ms)`,
          ratio(main) <= 1 ? 'met' : 'MISSED',
        ],
      ],
    );
  }
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
      [
        'runtime dependencies',
        String(c.packages.size + c.lazyPackages.size),
        '0',
        verdict(c.packages.size + c.lazyPackages.size === 0),
      ],
    ],
  );
}
