/**
 * Heartbeat defaults, measured (`npx tsx bench/run.ts heartbeat`).
 *
 * How long a partition goes unnoticed, against what the pings cost. A
 * dispatcher talks to a `ws` server through a TCP fault proxy; at a random
 * moment the proxy starts dropping both directions (a partition: no FIN, no
 * RST, as when a NAT forgets the flow or a cable is pulled) and the time to
 * the dispatcher's `close` is measured. Intervals run 100× faster than real
 * time and the figures are scaled back (the heartbeat's logic does not
 * depend on the scale; the loopback RTT is far below either). The cost is
 * counted at the proxy on an idle connection: bytes and frames per hour per
 * agent, and what that means for a service with 10,000 agents connected.
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocketServer } from 'ws';
import { createWsDispatcher } from '../packages/sdk/src/transport/ws/index.js';
import { startFaultProxy } from '../test/helpers/fault-proxy.js';
import { fmt, printTable } from './lib/harness.js';

const SCALE = 100;
const TRIALS = Number(process.env['BENCH_HEARTBEAT_TRIALS'] ?? 12);
const TOKEN = 'hsk_' + 'Bn7m'.repeat(10);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Setting {
  readonly name: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

const SETTINGS: readonly Setting[] = [
  { name: 'previous default (25 s / 60 s)', intervalMs: 25_000, timeoutMs: 60_000 },
  { name: 'new default (10 s / 25 s)', intervalMs: 10_000, timeoutMs: 25_000 },
  { name: 'aggressive (5 s / 10 s)', intervalMs: 5_000, timeoutMs: 10_000 },
];

async function server(): Promise<{ port: number; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  wss.on('connection', (ws) => ws.once('message', () => ws.send(JSON.stringify({ type: 'auth.ok' }))));
  return {
    port: (wss.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}

/** Milliseconds (real scale) from the start of a partition to the dispatcher's close. */
async function detection(port: number, s: Setting): Promise<number> {
  const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port } });
  const d = createWsDispatcher({
    url: `ws://127.0.0.1:${proxy.port}/ws`,
    agentId: 'bench-agent',
    token: TOKEN,
    heartbeat: { intervalMs: s.intervalMs / SCALE, timeoutMs: s.timeoutMs / SCALE },
    backoff: { baseMs: 60_000, capMs: 60_000, stableAfterMs: 60_000 },
  });
  await d.start();
  // A random phase against the ping cycle, as a real partition has.
  await sleep(s.intervalMs / SCALE + Math.random() * (s.intervalMs / SCALE));
  const closed = new Promise<number>((resolve) => d.once('close', () => resolve(performance.now())));
  const start = performance.now();
  void proxy.partition('both', Infinity);
  const end = await closed;
  await d.close();
  proxy.heal();
  await proxy.close();
  return (end - start) * SCALE;
}

/** Bytes both ways (real scale, per hour) on an idle connection. */
async function idleCost(port: number, s: Setting): Promise<{ bytes: number; pings: number }> {
  const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port } });
  const d = createWsDispatcher({
    url: `ws://127.0.0.1:${proxy.port}/ws`,
    agentId: 'bench-agent',
    token: TOKEN,
    heartbeat: { intervalMs: s.intervalMs / SCALE, timeoutMs: s.timeoutMs / SCALE },
  });
  await d.start();
  const before = proxy.stats();
  const windowMs = 20 * (s.intervalMs / SCALE);
  await sleep(windowMs);
  const after = proxy.stats();
  await d.close();
  await proxy.close();
  const bytes = after.bytesUpstream + after.bytesDownstream - before.bytesUpstream - before.bytesDownstream;
  const hourFactor = 3_600_000 / (windowMs * SCALE);
  return { bytes: bytes * hourFactor, pings: 20 * hourFactor };
}

export default async function (): Promise<void> {
  const srv = await server();
  const rows: string[][] = [];
  for (const s of SETTINGS) {
    const times: number[] = [];
    for (let i = 0; i < TRIALS; i++) times.push(await detection(srv.port, s));
    times.sort((a, b) => a - b);
    const cost = await idleCost(srv.port, s);
    rows.push([
      s.name,
      fmt(times[0]! / 1000, 1),
      fmt(times[Math.floor(times.length / 2)]! / 1000, 1),
      fmt(times.at(-1)! / 1000, 1),
      `${fmt(s.timeoutMs / 1000 - s.intervalMs / 1000, 0)}–${fmt(s.timeoutMs / 1000, 0)}`,
      fmt(cost.pings, 0),
      fmt(cost.bytes / 1024, 1),
      fmt((10_000 * cost.pings) / 3600, 0),
    ]);
  }
  await srv.close();
  printTable(
    `Partition → dead connection noticed (${TRIALS} partitions each at a random phase; intervals run ${SCALE}× faster, figures scaled back)`,
    [
      'Heartbeat (interval / timeout)',
      'min s',
      'median s',
      'max s',
      'expected s (timeout − interval … timeout)',
      'pings per hour',
      'KiB per hour (both ways)',
      'pings/s at 10,000 agents',
    ],
    rows,
  );
}
