/**
 * Typed stream parts benchmark (#26, `npx tsx bench/run.ts stream-parts`).
 *
 * Through the reference server on loopback, Agent, server and UserClient in
 * this one process (as the "one process" rows of streaming.bench.ts), in the
 * same run and interleaved round by round:
 *
 * 1. plain text: 10 000 deltas of 24 bytes (`write`, `coalesceMs: 0`);
 * 2. text of a step record's size: 10 000 deltas of 46 bytes (`write`);
 * 3. parts: 10 000 deltas, each one step update (`step({ id, status })`,
 *    a 46-byte record: read, checked and assembled by the UserClient, one
 *    `streamPart` event each);
 * 4. mixed: 10 000 deltas, a tool call or result every 10th, text otherwise.
 *
 * Deltas per second from the first write to the verified `streamEnd`
 * (median of 3 rounds after a warm-up) and CPU µs per delta (this process:
 * all three parties). On one core: the reader alone over the same texts.
 */
import { performance } from 'node:perf_hooks';
import { encodeStreamPart, StreamPartsReader } from '../packages/sdk/src/core/protocol/stream-parts.js';
import type { StreamWriter } from '../packages/sdk/src/agent/index.js';
import { createTestWorld, type TestWorld } from '../packages/dev/src/testing/index.js';
import { fmt, printTable } from './lib/harness.js';

const DELTAS = Number(process.env['BENCH_PARTS_DELTAS'] ?? 10_000);
const TEXT = 'token-token-token-tok\u00e9 '; // 24 bytes of UTF-8
const STEP_SIZED = 'x'.repeat(46);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Writes = (w: StreamWriter, i: number) => Promise<void>;

const KINDS: readonly (readonly [string, Writes])[] = [
  ['plain text, 24 B deltas', (w) => w.write(TEXT)],
  ['plain text, 46 B deltas', (w) => w.write(STEP_SIZED)],
  [
    'parts: one step update per delta (46 B)',
    (w, i) =>
      w.step({ id: `s${String(i % 100).padStart(3, '0')}`, status: i % 2 === 0 ? 'running' : 'done' }),
  ],
  [
    'mixed: a tool call or result every 10th delta',
    (w, i) => {
      if (i % 20 === 0) return w.toolCall({ callId: `c${i}`, name: 'search', input: { q: 'oslo' } });
      if (i % 20 === 10) return w.toolResult({ callId: `c${i - 10}`, output: { hits: 3 } });
      return w.write(TEXT);
    },
  ],
];

async function round(world: TestWorld, writes: Writes): Promise<{ perSecond: number; cpu: number }> {
  const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
  const ended = new Promise<number>((resolve, reject) => {
    const onEnd = (e: { streamId: string }): void => {
      if (e.streamId !== w.streamId) return;
      world.user.off('streamEnd', onEnd);
      resolve(performance.now());
    };
    world.user.on('streamEnd', onEnd);
    world.user.once('streamError', (f) => reject(new Error(`stream failed: ${f.reason}`)));
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < DELTAS; i += 1) await writes(w, i);
  await w.end();
  const t1 = await ended;
  const cpu = process.cpuUsage(cpu0);
  return { perSecond: DELTAS / ((t1 - t0) / 1000), cpu: (cpu.user + cpu.system) / DELTAS };
}

/** The reader alone, one core: chunks per second over `chunks`. */
function readerRate(chunks: readonly string[]): number {
  const pass = (): void => {
    const r = new StreamPartsReader();
    for (const c of chunks) r.push(c);
  };
  pass();
  const t0 = performance.now();
  const passes = 10;
  for (let p = 0; p < passes; p += 1) pass();
  return (passes * chunks.length) / ((performance.now() - t0) / 1000);
}

export default async function run(): Promise<void> {
  const world = await createTestWorld({ timeoutMs: 60_000 });
  const results = KINDS.map(() => ({ rates: [] as number[], cpu: [] as number[] }));
  let parts = 0;
  world.user.on('streamPart', () => void (parts += 1));
  try {
    await world.user.connect();
    for (const [, writes] of KINDS) await round(world, writes); // warm-up
    parts = 0;
    for (let r = 0; r < 3; r += 1)
      for (const [k, [, writes]] of KINDS.entries()) {
        const out = await round(world, writes);
        results[k]!.rates.push(out.perSecond);
        results[k]!.cpu.push(out.cpu);
      }
  } finally {
    await world.close();
  }
  const step = (encodeStreamPart({ type: 'step', id: 's001', status: 'running' }) as { text: string }).text;
  const textChunks = Array.from({ length: 20_000 }, () => TEXT);
  const stepChunks = Array.from({ length: 20_000 }, () => step);
  printTable(
    `Typed stream parts vs plain text, same run, one process (${fmt(DELTAS)} deltas a round, loopback)`,
    ['stream', 'deltas/s (median of 3)', 'rounds', 'CPU µs/delta'],
    [
      ...KINDS.map(([label], k) => [
        label,
        fmt(median(results[k]!.rates)),
        results[k]!.rates.map((x) => fmt(x)).join(' / '),
        results[k]!.cpu.map((x) => fmt(x, 1)).join(' / '),
      ]),
      ['reader alone, one core: 24 B text chunks', fmt(readerRate(textChunks)), '', ''],
      ['reader alone, one core: step records', fmt(readerRate(stepChunks)), '', ''],
    ],
  );
  console.log(`\n${fmt(parts)} streamPart events in the measured rounds`);
}
