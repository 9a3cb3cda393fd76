/**
 * Delivery engine benchmark (`npx tsx bench/run.ts delivery`).
 *
 * Webhook deliveries per second from the engine (sign + POST + classify +
 * log, one in flight per agent, 64 agents) to a local node:http receiver
 * answering 200, and the longest event-loop stall meanwhile
 * (perf_hooks.monitorEventLoopDelay). Two feeds: steady (each agent's
 * backlog topped up to 4, like a relay under sustained load) and burst (all
 * 20 000 events queued within a few ticks). Baseline in the same run: raw
 * undici POSTs of the same bodies with pre-computed headers, same connection
 * pool size, same concurrency (64), same receiver.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { systemClock } from '../packages/sdk/src/core/clock.js';
import { createDeliveryEngine } from '../packages/dev/src/server/delivery/index.js';
import { DEFAULT_SENDER_CONNECTIONS } from '../packages/dev/src/server/delivery/webhook-sender.js';
import type { OutboundEvent } from '../packages/dev/src/server/delivery/types.js';
import { createWebhookSigner } from '../packages/sdk/src/webhook/index.js';
import { fmt, printTable } from './lib/harness.js';

const SECRET = 'YmVuY2gtc2VjcmV0LWJlbmNoLXNlY3JldC1iZW5jaC0=';
const AGENTS = 64;
const TOTAL = Number(process.env['BENCH_DELIVERIES'] ?? 20_000);
const ENVELOPE_BYTES = 1024;
const ENQUEUE_CHUNK = 256;
const STEADY_BACKLOG = 4;

function agentId(i: number): string {
  return `0195523b-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

function events(): OutboundEvent[] {
  const wireEnvelope = Buffer.alloc(ENVELOPE_BYTES, 7).toString('base64');
  return Array.from({ length: TOTAL }, (_, i) => ({
    type: 'message.new',
    wireEnvelope,
    metadata: {
      conversation_id: `conv_${i % 97}`,
      sender_id: 'user_1',
      created_at: new Date().toISOString(),
    },
  }));
}

async function startReceiver(): Promise<{ server: Server; url: string; count: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.writeHead(200, { 'content-length': '0' });
      res.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hook`, count: () => n };
}

interface Run {
  perSec: number;
  maxStallMs: number;
  p99StallMs: number;
}

async function timed(count: number, work: () => Promise<void>): Promise<Run> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const start = performance.now();
  await work();
  const elapsed = performance.now() - start;
  h.disable();
  // The histogram includes the sampling resolution; subtract it to get the stall itself.
  const stall = (ns: number): number => Math.max(0, ns / 1e6 - 5);
  return { perSec: (count / elapsed) * 1000, maxStallMs: stall(h.max), p99StallMs: stall(h.percentile(99)) };
}

type Feed = 'burst' | 'steady';

/** Enqueues every event: all at once in chunks (burst), or keeping each agent's backlog at 4 (steady). */
async function feed(
  engine: ReturnType<typeof createDeliveryEngine>,
  agents: readonly string[],
  evs: readonly OutboundEvent[],
  mode: Feed,
): Promise<void> {
  let next = 0;
  while (next < evs.length) {
    if (mode === 'burst') {
      const end = Math.min(evs.length, next + ENQUEUE_CHUNK);
      for (; next < end; next++) engine.enqueue(agents[next % AGENTS]!, evs[next]!);
    } else {
      for (const a of agents) {
        for (let depth = engine.pendingCount(a); depth < STEADY_BACKLOG && next < evs.length; depth++) {
          engine.enqueue(a, evs[next++]!);
        }
      }
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function engineRun(url: string, evs: readonly OutboundEvent[], mode: Feed): Promise<Run> {
  const agents = Array.from({ length: AGENTS }, (_, i) => agentId(i));
  const engine = createDeliveryEngine({
    clock: systemClock,
    target: { mode: () => 'webhook', sendWs: () => false },
  });
  for (const a of agents) engine.setWebhook(a, { url, secret: SECRET });
  const run = await timed(evs.length, async () => {
    await feed(engine, agents, evs, mode);
    await engine.idle();
  });
  const delivered = agents.reduce((n, a) => n + engine.logs(a, 500).length, 0);
  if (agents.some((a) => engine.pendingCount(a) > 0) || delivered === 0)
    throw new Error('engine left work undone');
  await engine.close();
  return run;
}

async function baselineRun(url: string, evs: readonly OutboundEvent[]): Promise<Run> {
  const dispatcher = new Agent({ connections: DEFAULT_SENDER_CONNECTIONS, keepAliveTimeout: 10_000 });
  const signer = createWebhookSigner({ secret: SECRET });
  const bodies = evs.map((e) =>
    Buffer.from(
      JSON.stringify({ type: e.type, version: 'v1', wire_envelope: e.wireEnvelope, metadata: e.metadata }),
    ),
  );
  const { headers } = await signer.sign({
    timestamp: Math.floor(Date.now() / 1000),
    deliveryId: '0195523b-0000-7000-8000-000000000001',
    body: bodies[0]!,
    agentId: agentId(0),
  });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
        body,
        dispatcher,
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    }
  };
  const run = await timed(bodies.length, async () => {
    await Promise.all(Array.from({ length: AGENTS }, worker));
  });
  await dispatcher.close();
  return run;
}

/** Runs the benchmark and prints its table. */
export default async function (): Promise<void> {
  const receiver = await startReceiver();
  const evs = events();
  // Warm-up: JIT, connections, HMAC backend.
  await engineRun(receiver.url, evs.slice(0, 2_000), 'steady');
  const rows: string[][] = [];
  const row = (name: string, r: Run): string[] => [
    name,
    fmt(r.perSec),
    fmt(r.maxStallMs, 1),
    fmt(r.p99StallMs, 1),
  ];
  for (let round = 1; round <= 2; round++) {
    rows.push(row(`raw undici POST (baseline), round ${round}`, await baselineRun(receiver.url, evs)));
    rows.push(
      row(
        `engine, steady (backlog ${STEADY_BACKLOG}/agent), round ${round}`,
        await engineRun(receiver.url, evs, 'steady'),
      ),
    );
    rows.push(
      row(`engine, burst (all queued at once), round ${round}`, await engineRun(receiver.url, evs, 'burst')),
    );
  }
  printTable(
    `Webhook deliveries to a local receiver (${fmt(TOTAL)} × ${ENVELOPE_BYTES} B envelopes, ${AGENTS} agents, ${DEFAULT_SENDER_CONNECTIONS} connections)`,
    ['Sender', 'deliveries/s', 'max event-loop stall (ms)', 'p99 stall (ms)'],
    rows,
  );
  console.log(
    `\nTargets: ≥ 2,000 deliveries/s and stall < 50 ms. Receiver answered ${fmt(receiver.count())} requests.`,
  );
  receiver.server.closeAllConnections();
  await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
}
