/**
 * Copies of one agent sharing delivery (issue #25), measured
 * (`npx tsx bench/run.ts copies`).
 *
 * Throughput, CPU per message and p99 latency with 1, 2 and 4 copies
 * (`copies: 'shared'`), beside the baseline of the same run: one copy in the
 * default `exclusive` mode. One reference server, 8 users each in their own
 * conversation, 800 messages; every copy is an Agent in this process (the
 * figures show the service's routing and the SDK's overhead, not more cores)
 * whose handler waits 20 ms (an I/O-bound turn) and handles 2 conversations
 * at once (`concurrency: 2`), so a copy's capacity is bounded as a real
 * copy's is. CPU is this whole process (server, senders, agents) per message.
 * Latency: from the server accepting a message to its handler starting.
 *
 * Failover after SIGKILL (needs AMS_TEST_REDIS_URL): two copies in child
 * processes share Redis; one is killed inside a handler; the time from its
 * death to a sibling handling its redelivered event, with the default 15 s
 * lease. The baseline of the same run is the lease before #25 (10 min): the
 * time the event would have waited, not measured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AgentChild, RecordReader } from '../test/helpers/agent-child.js';
import { startChaos } from '../test/helpers/chaos.js';
import { messageText } from '../test/helpers/chaos-recorder.js';
import { fmt, printTable } from './lib/harness.js';

const CONVERSATIONS = 8;
const MESSAGES = Number(process.env['BENCH_COPIES_MESSAGES'] ?? 800);
const HANDLER_MS = 20;

interface Row {
  readonly name: string;
  readonly perSecond: number;
  readonly cpuUsPerMessage: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function throughput(name: string, copies: number, shared: boolean): Promise<Row> {
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const world = await startChaos({
    transport: 'websocket',
    conversations: CONVERSATIONS,
    messages: MESSAGES,
    handlerMs: HANDLER_MS,
    timeoutMs: 60_000,
    agent: { concurrency: 2, logger: false, ...(shared ? { copies: 'shared' as const } : {}) },
    launch: async (w) => {
      for (let i = 0; i < copies; i++) {
        const agent = await w.startAgent('websocket');
        agent.on('message.new', (m) => {
          const at = sentAt.get(m.text ?? '');
          if (at !== undefined) latencies.push(Math.max(0, performance.now() - at));
        });
      }
    },
  });
  try {
    const sent = world.recorder.sent.bind(world.recorder);
    world.recorder.sent = (conv, seq) => {
      sentAt.set(messageText(conv, seq), performance.now());
      sent(conv, seq);
    };
    const cpu = process.cpuUsage();
    const started = performance.now();
    const report = await world.run([]);
    const elapsedMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (report.counts.handled !== MESSAGES || report.counts.duplicated !== 0)
      throw new Error(`copies bench: ${report.summary}`);
    latencies.sort((a, b) => a - b);
    return {
      name,
      perSecond: (MESSAGES * 1000) / elapsedMs,
      cpuUsPerMessage: (used.user + used.system) / MESSAGES,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
    };
  } finally {
    await world.close();
  }
}

/** Ms from a copy's SIGKILL inside a handler to a sibling handling that event, or undefined without Redis. */
async function failover(): Promise<number | undefined> {
  const url = process.env['AMS_TEST_REDIS_URL'];
  if (url === undefined || url === '') return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'ams-bench-copies-'));
  const children: AgentChild[] = [];
  const readers: RecordReader[] = [];
  const world = await startChaos({
    transport: 'websocket',
    conversations: 2,
    messages: 2,
    launch: async (w) => {
      for (const name of ['a', 'b']) {
        const reader = new RecordReader(join(dir, `${name}.log`));
        const child = new AgentChild({
          baseUrl: w.server.url,
          agentId: w.agentId,
          token: w.account.token,
          keyDir: join(dir, 'keys'),
          recordFile: reader.file,
          claimLeaseMs: 15_000,
          redis: { url, prefix: `ams:bench:copies:${process.pid}:` },
          copies: 'shared',
          standby: false,
          timeoutMs: 60_000,
        });
        children.push(child);
        readers.push(reader);
        await child.start();
      }
    },
  });
  try {
    // The first conversation went to the oldest copy (both owned none): it dies in the handler.
    children[0]!.arm('in-handler');
    const send = async (conv: number): Promise<void> => {
      const side = world.sides[conv]!;
      await side.postWire(await side.seal({ type: 'text', text: messageText(conv, 0) }));
    };
    await send(0);
    const dead = await Promise.race(children.map((c, i) => c.exited().then(() => i)));
    const killedAt = performance.now();
    if (dead !== 0) throw new Error('copies bench: the wrong copy died');
    for (;;) {
      if (readers[1 - dead]!.read().some((l) => l.startsWith('handled ')))
        return performance.now() - killedAt;
      if (performance.now() - killedAt > 60_000) throw new Error('copies bench: no failover within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function run(): Promise<void> {
  const rows: Row[] = [await throughput('baseline: 1 copy, exclusive', 1, false)];
  for (const n of [1, 2, 4]) rows.push(await throughput(`${n} cop${n === 1 ? 'y' : 'ies'}, shared`, n, true));
  printTable(
    `${MESSAGES} messages over ${CONVERSATIONS} conversations; handler waits ${HANDLER_MS} ms, concurrency 2 per copy`,
    ['run', 'messages/s', 'CPU µs/message', 'p50 ms', 'p99 ms'],
    rows.map((r) => [r.name, fmt(r.perSecond), fmt(r.cpuUsPerMessage), fmt(r.p50Ms, 1), fmt(r.p99Ms, 1)]),
  );
  const ms = await failover();
  if (ms === undefined) {
    console.log('\nfailover after SIGKILL: skipped (set AMS_TEST_REDIS_URL)');
    return;
  }
  printTable(
    'failover after SIGKILL inside a handler (2 copies, Redis)',
    ['run', 'killed copy’s event handled by a sibling after'],
    [
      ['baseline: lease before #25 (10 min, not measured)', '≥ 600 000 ms'],
      ['claim lease 15 s, renewed every 5 s', `${fmt(ms)} ms`],
    ],
  );
}
