/**
 * Small benchmark harness: run a function for a fixed time, report ops/s,
 * and print tables where each figure sits beside its same-run baseline.
 */
import { performance } from 'node:perf_hooks';

/** Result of one measurement. */
export interface Measurement {
  name: string;
  opsPerSec: number;
  /** Mean time per operation, microseconds. */
  meanUs: number;
  iterations: number;
}

/**
 * Runs `fn` repeatedly (sync or async) for about `durationMs` after a short
 * warm-up, and reports operations per second.
 */
export async function measure(
  name: string,
  fn: () => unknown,
  options: { durationMs?: number; warmupMs?: number; batch?: number } = {},
): Promise<Measurement> {
  const durationMs = options.durationMs ?? Number(process.env['BENCH_MS'] ?? 1000);
  const warmupMs = options.warmupMs ?? Math.min(300, durationMs / 3);
  const batch = options.batch ?? 1;
  const runFor = async (ms: number): Promise<[number, number]> => {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < ms) {
      for (let i = 0; i < batch; i++) {
        const r = fn();
        if (r instanceof Promise) await r;
      }
      n += batch;
      now = performance.now();
    }
    return [n, now - start];
  };
  await runFor(warmupMs);
  const [iterations, elapsed] = await runFor(durationMs);
  return {
    name,
    iterations,
    opsPerSec: (iterations / elapsed) * 1000,
    meanUs: (elapsed / iterations) * 1000,
  };
}

/** Formats a number with thousands separators and `digits` decimals. */
export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** Prints a titled table with aligned columns. */
export function printTable(
  title: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    '| ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  console.log(`\n### ${title}\n`);
  console.log(line(header));
  console.log(
    '|' +
      widths.map((w, i) => (i === 0 ? ':' : '') + '-'.repeat(w + 1) + (i === 0 ? '' : ':')).join('|') +
      '|',
  );
  for (const r of rows) console.log(line(r));
}

/** Heap used right now after a forced GC when `--expose-gc` is on, in bytes. */
export function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
  return process.memoryUsage().heapUsed;
}
