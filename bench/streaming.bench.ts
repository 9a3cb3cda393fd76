/**
 * Streamed replies benchmark (`npx tsx bench/run.ts streaming`).
 *
 * Through the reference server on loopback (real sockets: Agent WebSocket →
 * server relay → UserClient WebSocket, deltas sealed, relayed, opened and
 * checked in order, the end verified):
 *
 * 1. Throughput: 20 000 deltas of 24 bytes written back to back
 *    (`coalesceMs: 0`, every write is its own delta, back-pressure on),
 *    from the first write to the verified `streamEnd`; median of 3 rounds.
 * 2. Latency: 2 000 deltas paced one per millisecond; write → `streamDelta`
 *    on the human side, p50 / p99.
 * 3. Coalescing: 20 000 4-byte tokens with the default coalescing (10 ms or
 *    1 KiB): tokens per second and how many deltas carried them.
 *
 * Baselines from the same run: (a) the same 24-byte payloads sent as
 * ordinary messages (`agent.send`, sealed envelope each, POST, relay, user
 * opens it), one after another; the service's 5 messages/s limit is lifted
 * by moving the server's virtual clock 200 ms before each send, so the figure
 * is the cost of a message, not the limit; (b) raw AES-256-GCM seal of the
 * same payloads on one core (`sealDelta` in a loop).
 *
 * Stream v2 (deltas signed as the agent's, docs/envelope.md) beside what it
 * replaced, per delta on one core, same run: the v1 sender work (AES-GCM seal
 * plus the incremental transcript hash over the ciphertext, node:crypto
 * directly), the v2 sender work without signatures (frame, keyed chain hash,
 * AES-GCM seal), and one Ed25519 sign and one verify: what a signature on
 * every delta would cost, which the batched checkpoints avoid.
 *
 * Rows 1–3 run twice: with the server, the agent and the UserClient in this
 * one process (one event loop for all three hops), and with the server in a
 * child process (bench/lib/stream-server.ts; agent and UserClient here).
 */
import { spawn } from 'node:child_process';
import { createCipheriv, createHash, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { Agent } from '../packages/sdk/src/agent/index.js';
import { UserClient } from '../packages/sdk/src/client/index.js';
import { MemoryKeyStore } from '../packages/sdk/src/crypto/key-store/index.js';
import { defaultSyncBackend } from '../packages/sdk/src/crypto/backend/node-default.js';
import {
  frameStreamDelta,
  signStream,
  streamCipher,
  StreamChain,
  verifyStreamSignature,
} from '../packages/sdk/src/crypto/stream/stream-crypto.js';
import { createTestWorld, DEFAULT_TEST_WORLD_OPTIONS } from '../packages/dev/src/testing/index.js';
import { fmt, printTable } from './lib/harness.js';

const DELTAS = Number(process.env['BENCH_STREAM_DELTAS'] ?? 20_000);
const PACED = Number(process.env['BENCH_STREAM_PACED'] ?? 2_000);
const MESSAGES = Number(process.env['BENCH_STREAM_MESSAGES'] ?? 500);
const PAYLOAD = 'token-token-token-tok\u00e9 '; // 24 bytes of UTF-8

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/** The agent and the user's client, connected, and their conversation. */
interface Parties {
  readonly agent: Agent;
  readonly user: UserClient;
  readonly conversationId: string;
}

function waitForEnd(world: Parties, streamId: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onEnd = (e: { streamId: string }) => {
      if (e.streamId !== streamId) return;
      world.user.off('streamEnd', onEnd);
      resolve(performance.now());
    };
    world.user.on('streamEnd', onEnd);
    world.user.once('streamError', (f) => reject(new Error(`stream failed: ${f.reason}`)));
  });
}

/** CPU µs (user + system, this process) per delta of each throughput round, in order. */
const cpuPerDelta: number[] = [];

async function throughputRound(world: Parties): Promise<number> {
  const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
  const ended = waitForEnd(world, w.streamId);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < DELTAS; i += 1) await w.write(PAYLOAD);
  await w.end();
  const t1 = await ended;
  const cpu = process.cpuUsage(cpu0);
  cpuPerDelta.push((cpu.user + cpu.system) / DELTAS);
  return DELTAS / ((t1 - t0) / 1000);
}

async function latency(world: Parties): Promise<{ p50: number; p99: number }> {
  const sent = new Map<number, number>();
  const lat: number[] = [];
  const onDelta = (e: { seq: number }) => {
    const t = sent.get(e.seq);
    if (t !== undefined) lat.push(performance.now() - t);
  };
  world.user.on('streamDelta', onDelta);
  const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
  const ended = waitForEnd(world, w.streamId);
  const start = performance.now();
  for (let i = 0; i < PACED; i += 1) {
    const due = start + i;
    const now = performance.now();
    if (due > now) await sleep(due - now);
    sent.set(i + 1, performance.now());
    await w.write(PAYLOAD);
  }
  await w.end();
  await ended;
  world.user.off('streamDelta', onDelta);
  return { p50: percentile(lat, 50), p99: percentile(lat, 99) };
}

async function coalesced(world: Parties): Promise<{ tokensPerSecond: number; deltas: number }> {
  const w = await world.agent.stream(world.conversationId);
  const ended = waitForEnd(world, w.streamId);
  const t0 = performance.now();
  for (let i = 0; i < DELTAS; i += 1) await w.write('tok ');
  const summary = await w.end();
  const t1 = await ended;
  return { tokensPerSecond: DELTAS / ((t1 - t0) / 1000), deltas: summary.deltas };
}

async function asMessages(
  world: Parties & { server: { advanceTime(ms: number): void } },
): Promise<{ perSecond: number; p50: number }> {
  let received = 0;
  let wake: (() => void) | undefined;
  world.user.on('message', () => {
    received += 1;
    wake?.();
  });
  const lat: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < MESSAGES; i += 1) {
    world.server.advanceTime(200);
    const s = performance.now();
    const arrived = new Promise<void>((resolve) => (wake = resolve));
    await world.agent.send(world.conversationId, PAYLOAD);
    if (received <= i) await arrived;
    lat.push(performance.now() - s);
  }
  return { perSecond: MESSAGES / ((performance.now() - t0) / 1000), p50: percentile(lat, 50) };
}

function rawAesGcm(): number {
  const cipher = streamCipher(new Uint8Array(32).fill(7), 'bench-stream');
  const bytes = new TextEncoder().encode(PAYLOAD);
  const n = 200_000;
  for (let i = 1; i <= 10_000; i += 1) cipher.sealDelta(i, bytes);
  const t0 = performance.now();
  for (let i = 1; i <= n; i += 1) cipher.sealDelta(i, bytes);
  return n / ((performance.now() - t0) / 1000);
}

/** Per-delta costs on one core: v1's sender work, v2's without signatures, one Ed25519 sign and verify. */
function perDelta(): { v1: number; v2: number; sign: number; verify: number } {
  const bytes = new TextEncoder().encode(PAYLOAD);
  const rate = (n: number, fn: (i: number) => void): number => {
    for (let i = 1; i <= Math.min(n, 2_000); i += 1) fn(i);
    const t0 = performance.now();
    for (let i = 1; i <= n; i += 1) fn(i);
    return n / ((performance.now() - t0) / 1000);
  };
  const dk = new Uint8Array(32).fill(7);
  const transcript = createHash('sha256');
  const v1 = rate(100_000, (i) => {
    const nonce = Buffer.alloc(12);
    nonce.writeUInt32BE(i, 8);
    const gcm = createCipheriv('aes-256-gcm', dk, nonce);
    gcm.setAAD(nonce);
    const sealed = Buffer.concat([gcm.update(bytes), gcm.final(), gcm.getAuthTag()]);
    transcript.update(nonce).update(sealed);
  });
  const cipher = streamCipher(new Uint8Array(32).fill(7), 'bench-stream');
  let chain = new StreamChain(cipher.chainStart);
  const v2 = rate(100_000, (i) => {
    if (i === 1) chain = new StreamChain(cipher.chainStart);
    chain.add(chain.seq + 1, bytes);
    cipher.sealDelta(chain.seq, frameStreamDelta(bytes));
  });
  const seed = new Uint8Array(32).fill(5);
  const signing = { publicKey: defaultSyncBackend().ed25519PublicKey(seed), privateKey: seed };
  const h = new Uint8Array(32).fill(1);
  const sig = signStream(signing, 'checkpoint', 'bench-stream', 1, h);
  const sign = rate(5_000, (i) => signStream(signing, 'checkpoint', 'bench-stream', i, h));
  const verify = rate(5_000, () =>
    verifyStreamSignature(signing.publicKey, 'checkpoint', 'bench-stream', 1, h, sig),
  );
  return { v1, v2, sign, verify };
}

/** Throughput (median of 3 after a warm-up), paced latency and coalescing, on one set of parties. */
async function streamRows(world: Parties): Promise<{
  rounds: number[];
  lat: { p50: number; p99: number };
  co: { tokensPerSecond: number; deltas: number };
  cpu: number[];
}> {
  await throughputRound(world); // warm-up
  cpuPerDelta.length = 0;
  const rounds: number[] = [];
  for (let r = 0; r < 3; r += 1) rounds.push(await throughputRound(world));
  const cpu = [...cpuPerDelta];
  const lat = await latency(world);
  const co = await coalesced(world);
  return { rounds, lat, co, cpu };
}

/** The reference server in a child process; the agent and a UserClient here, signed up over HTTP. */
async function separateServer(): Promise<Parties & { close(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/stream-server.ts'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => JSON.parse(String((await lines.next()).value)) as T;
  const { url } = await next<{ url: string }>();
  const user = new UserClient({ baseUrl: url, keyBackup: DEFAULT_TEST_WORLD_OPTIONS.keyBackup });
  const email = `bench-${randomUUID()}@example.test`;
  await user.sendCode({ email, scene: 'register', turnstileToken: 'bench' });
  child.stdin!.write(`code ${email}\n`);
  const { code } = await next<{ code: string }>();
  await user.register({
    email,
    code,
    accountPassword: 'bench-account-password',
    displayName: 'Bench user',
    deviceLocale: 'en-GB',
    turnstileToken: 'bench',
    protectionPassword: 'bench-protection-password',
  });
  const { agentId, token } = await user.createAgent({ name: 'bench' });
  const agent = new Agent({
    baseUrl: url,
    agentId,
    token,
    keyStore: new MemoryKeyStore(),
    shutdownSignals: false,
  });
  await agent.connect();
  const { conversationId } = await user.addAgent(agentId);
  await user.connect();
  return {
    agent,
    user,
    conversationId,
    async close() {
      await agent.close();
      await user.disconnect();
      child.stdin!.end();
    },
  };
}

export default async function run(): Promise<void> {
  const world = await createTestWorld({ timeoutMs: 60_000 });
  let one: Awaited<ReturnType<typeof streamRows>>;
  let msg: { perSecond: number; p50: number };
  let aes: number;
  let costs: ReturnType<typeof perDelta>;
  try {
    await world.user.connect();
    one = await streamRows(world);
    msg = await asMessages(world);
    aes = rawAesGcm();
    costs = perDelta();
  } finally {
    await world.close();
  }
  const apart = await separateServer();
  let two: Awaited<ReturnType<typeof streamRows>>;
  try {
    two = await streamRows(apart);
  } finally {
    await apart.close();
  }
  const rows = (label: string, r: typeof one): string[][] => [
    [
      `${label}: deltas back to back (median of 3)`,
      fmt(median(r.rounds)),
      '',
      '',
      `rounds ${r.rounds.map((x) => fmt(x)).join(' / ')}; CPU µs/delta here ${r.cpu.map((x) => fmt(x, 1)).join(' / ')}`,
    ],
    [
      `${label}: deltas paced 1/ms (${fmt(PACED)})`,
      '',
      fmt(r.lat.p50, 2),
      fmt(r.lat.p99, 2),
      'write → streamDelta',
    ],
    [
      `${label}: tokens of 4 B, default coalescing`,
      fmt(r.co.tokensPerSecond),
      '',
      '',
      `${fmt(DELTAS)} tokens in ${fmt(r.co.deltas)} deltas`,
    ],
  ];
  printTable(
    `Streamed deltas through the reference server to a UserClient (${fmt(DELTAS)} × 24 B, loopback)`,
    ['path', 'per second', 'p50 ms', 'p99 ms', 'note'],
    [
      ...rows('one process', one),
      ...rows('server apart', two),
      [
        `baseline: each payload as a message (${fmt(MESSAGES)}, one process)`,
        fmt(msg.perSecond),
        fmt(msg.p50, 2),
        '',
        'send → user opened it',
      ],
      ['baseline: raw AES-256-GCM seal, one core', fmt(aes), '', '', 'sealDelta only'],
      [
        'baseline: stream v1 sender work per delta, one core',
        fmt(costs.v1),
        '',
        '',
        'AES-GCM + transcript hash (node:crypto)',
      ],
      ['stream v2 sender work per delta, one core', fmt(costs.v2), '', '', 'frame + keyed chain + AES-GCM'],
      [
        'stream v2: one Ed25519 checkpoint signature',
        fmt(costs.sign),
        '',
        '',
        'per burst of writes (≥ 1 per 256 deltas)',
      ],
      [
        'stream v2: one Ed25519 checkpoint verification',
        fmt(costs.verify),
        '',
        '',
        'what one per delta would cap at',
      ],
    ],
  );
  for (const [label, r] of [
    ['one process', one],
    ['server apart', two],
  ] as const) {
    const perSecond = median(r.rounds);
    console.log(
      `\n${label}: stream / message throughput ${fmt(perSecond / msg.perSecond, 1)}×; targets: ≥ 20,000 deltas/s (${perSecond >= 20_000 ? 'met' : 'missed'}), p99 < 5 ms (${r.lat.p99 < 5 ? 'met' : 'missed'}), ≥ 20× messages (${perSecond / msg.perSecond >= 20 ? 'met' : 'missed'})`,
    );
  }
}
