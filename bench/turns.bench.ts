/**
 * Stop latency benchmark (`npx tsx bench/run.ts turns`, issue #26).
 *
 * Through the reference server on loopback, one process, WebSocket mode:
 * the human's UserClient sends a message, the agent's handler starts and
 * waits on `ctx.signal`; then `user.stopTurn()` is called and the time until
 * the handler's signal fires is measured (seal the stop, POST, relay, open,
 * route around the conversation's queue, abort). Baseline of the same run:
 * a plain round trip, the human's message → the agent's reply opened by the
 * human. The service's 5 messages/s limit is lifted by moving the server's
 * virtual clock 500 ms before each send (100 rounds stay well inside the 5-minute skew window of the human's real-time clock) (the agent answers every stop).
 */
import { performance } from 'node:perf_hooks';
import { isMessage } from '../packages/sdk/src/agent/context.js';
import { createTestWorld } from '../packages/dev/src/testing/index.js';
import { fmt, printTable } from './lib/harness.js';

const ROUNDS = Number(process.env['BENCH_TURN_STOPS'] ?? 100);

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

export default async function run(): Promise<void> {
  const world = await createTestWorld({ timeoutMs: 60_000 });
  try {
    let started = deferred();
    let aborted = deferred();
    world.agent.filter(isMessage, async (ctx) => {
      if (ctx.text === 'ping') return void (await ctx.reply('pong'));
      started.resolve();
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      aborted.resolve();
    });
    let replied = deferred();
    world.user.on('message', (m) => {
      if ((m.payload as { text?: string }).text === 'pong') replied.resolve();
    });
    await world.user.connect();

    const stops: number[] = [];
    const trips: number[] = [];
    for (let i = 0; i < ROUNDS + 10; i += 1) {
      world.server.advanceTime(500);
      started = deferred();
      aborted = deferred();
      await world.user.send(world.conversationId, { type: 'text', text: 'work' });
      await started.promise;
      const t0 = performance.now();
      await world.user.stopTurn(world.conversationId);
      await aborted.promise;
      const stop = performance.now() - t0;

      world.server.advanceTime(500);
      replied = deferred();
      const t1 = performance.now();
      await world.user.send(world.conversationId, { type: 'text', text: 'ping' });
      await replied.promise;
      const trip = performance.now() - t1;
      if (i >= 10) {
        stops.push(stop); // the first 10 rounds warm up
        trips.push(trip);
      }
    }
    printTable(
      `Stop latency: user.stopTurn() → the handler's ctx.signal fires (${fmt(ROUNDS)} rounds, loopback, one process)`,
      ['path', 'p50 ms', 'p99 ms', 'note'],
      [
        [
          'stop → signal',
          fmt(percentile(stops, 50), 2),
          fmt(percentile(stops, 99), 2),
          'sealed turn.stop, around the queue',
        ],
        [
          'baseline: message → reply opened',
          fmt(percentile(trips, 50), 2),
          fmt(percentile(trips, 99), 2),
          'the same run, same conversation',
        ],
      ],
    );
  } finally {
    await world.close();
  }
}
