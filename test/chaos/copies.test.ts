/**
 * Chaos: several copies of one agent (issue #25), each a process of its own
 * (test/helpers/sigkill-agent.ts with `copies: 'shared'`), sharing one key
 * directory and one Redis de-duplication store. 600 messages over 8
 * conversations; each copy appends what it handled to its own
 * record file, so the verdict (0 lost, 0 handled twice, 0 out of order
 * within a conversation) and "every copy did work" are exact.
 *
 * One run, 3 copies then 2 (the scenario is one world to keep CI time low):
 * copy a is killed with SIGKILL inside a handler and started again; a
 * rolling deploy starts d before b drains (SIGTERM); another drains c before
 * e starts (2 copies live in between); Redis is killed and started again
 * (empty); the restarted a drains and d and e finish. After the SIGKILL,
 * every message that was waiting (the killed copy's redelivered events
 * first) must be handled by a sibling within 15 s: a bound of the scenario,
 * not a speed assertion. Every copy must have handled messages.
 *
 * Redis is a redis-server of this file's own (so that restarting it
 * disturbs no other test), on a free port; the claim lease is 2.5 s (renewed while a
 * handler runs), so the killed copy's claim lapses within the scenario.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentChild, RecordReader } from '../helpers/agent-child.js';
import { expectClean, startChaos, type ChaosWorld, type Fault } from '../helpers/chaos.js';
import { skipRedis } from '../helpers/redis.js';

const CLAIM_LEASE_MS = 2_500;
const CONVERSATIONS = 8;
const MESSAGES = 600;
/** The scenario's bound for the first redelivered events after a SIGKILL, ms. */
const FAILOVER_BOUND_MS = 15_000;

/** How long a record waits before it is fed, so that every copy's file has been read past it, ms. */
const RECORD_HOLD_BACK_MS = 250;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** A redis-server of this file's own, which a scenario can kill and start again on the same port. */
class OwnRedis {
  #proc: ChildProcess | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const proc = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    proc.on('error', () => undefined);
    this.#proc = proc;
    const probe = new Redis(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined);
    try {
      for (let i = 0; ; i++) {
        try {
          await probe.connect();
          await probe.ping();
          return;
        } catch (error) {
          if (i > 200) throw error;
          await pause(25);
        }
      }
    } finally {
      probe.disconnect();
    }
  }

  async stop(): Promise<void> {
    const proc = this.#proc;
    this.#proc = undefined;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }
}

/** One copy: its process (across restarts) and what it handled. */
interface Copy {
  readonly name: string;
  readonly child: AgentChild;
  readonly reader: RecordReader;
  handled: number;
}

interface Run {
  world?: ChaosWorld;
  redis?: OwnRedis;
  copies: Copy[];
  /** Copies loaded ahead and not started yet. */
  preloaded: Copy[];
  dir: string;
  poller?: ReturnType<typeof setInterval>;
}

let run: Run | undefined;
const trace: string[] = [];

afterEach(async () => {
  const r = run;
  run = undefined;
  if (r === undefined) return;
  if (r.poller !== undefined) clearInterval(r.poller);
  await Promise.all([...r.copies, ...r.preloaded].map((c) => c.child.stop()));
  await r.world?.close();
  await r.redis?.stop();
  if (process.env['AMS_DEBUG_COPIES']) console.info(`copies chaos: records kept in ${r.dir}`);
  else rmSync(r.dir, { recursive: true, force: true });
});

interface Scenario {
  readonly world: ChaosWorld;
  readonly redis: OwnRedis;
  /** Starts one more copy (connected when it resolves); loaded ahead by `preload`. */
  readonly add: (name: string, standby?: boolean) => Promise<Copy>;
  /** Loads a copy's process now, so that `add` later connects it in milliseconds. */
  readonly preload: (name: string) => void;
  /** Reads every record file into the world's recorder. */
  /**
   * Feeds the copies' records to the recorder in the order they were written (each record carries
   * its time; records of the last moments are held back until every file has been read past them,
   * so a record read earlier from one file cannot overtake an older one of another). `flush` feeds
   * everything.
   */
  readonly pump: (flush?: boolean) => void;
  readonly copies: readonly Copy[];
}

/** A chaos world whose agent runs as `initial` copies sharing delivery. */
async function scenario(initial: readonly string[], standby: readonly string[] = []): Promise<Scenario> {
  const r: Run = { dir: mkdtempSync(join(tmpdir(), 'ams-copies-')), copies: [], preloaded: [] };
  run = r;
  const redis = new OwnRedis(await freePort());
  r.redis = redis;
  await redis.start();
  let world: ChaosWorld | undefined;
  const preloaded = new Map<string, Copy>();
  const make = (name: string, keepStandby: boolean): Copy => {
    const w = world!;
    const reader = new RecordReader(join(r.dir, `${name}.log`));
    const child = new AgentChild({
      baseUrl: w.server.url,
      agentId: w.agentId,
      token: w.account.token,
      keyDir: join(r.dir, 'keys'),
      recordFile: reader.file,
      claimLeaseMs: CLAIM_LEASE_MS,
      redis: { url: redis.url, prefix: 'ams:copies:' },
      copies: 'shared',
      standby: keepStandby,
      timeoutMs: 20_000,
    });
    return { name, child, reader, handled: 0 };
  };
  const preload = (name: string): void => {
    const copy = make(name, false);
    copy.child.preload();
    preloaded.set(name, copy);
    r.preloaded.push(copy);
  };
  const add = async (name: string, keepStandby = false): Promise<Copy> => {
    const copy = preloaded.get(name) ?? make(name, keepStandby);
    r.preloaded = r.preloaded.filter((c) => c !== copy);
    r.copies.push(copy);
    await copy.child.start();
    return copy;
  };
  world = await startChaos({
    transport: 'websocket',
    conversations: CONVERSATIONS,
    messages: MESSAGES,
    timeoutMs: 20_000,
    // A delivery deferred while Redis was down is not lost either way; a short ack timeout keeps the run short.
    server: { wsAck: { timeoutMs: 2_000 } },
    launch: async (w) => {
      world = w;
      // The first copy makes and registers the keys; the others load them from the shared directory.
      const [first, ...rest] = initial;
      await add(first!, standby.includes(first!));
      await Promise.all(rest.map((name) => add(name, standby.includes(name))));
    },
  });
  r.world = world;
  const pending: { readonly at: number; readonly text: string }[] = [];
  const pump = (flush = false): void => {
    for (const copy of r.copies) {
      for (const line of copy.reader.read()) {
        if (!line.startsWith('handled ')) continue;
        const [text = '', at = '0'] = line.slice('handled '.length).split('\t');
        pending.push({ at: Number(at), text });
        copy.handled++;
        if (process.env['AMS_DEBUG_COPIES']) trace.push(`${at} ${copy.name} ${text}`);
      }
    }
    pending.sort((x, y) => x.at - y.at);
    const cutoff = flush ? Infinity : performance.timeOrigin + performance.now() - RECORD_HOLD_BACK_MS;
    let fed = 0;
    while (fed < pending.length && pending[fed]!.at <= cutoff) world!.recorder.handled(pending[fed++]!.text);
    pending.splice(0, fed);
  };
  r.poller = setInterval(pump, 5);
  return { world, redis, add, preload, pump, copies: r.copies };
}

function copyNamed(s: Scenario, name: string): Copy {
  const copy = s.copies.find((c) => c.name === name);
  if (copy === undefined) throw new Error(`no copy ${name}`);
  return copy;
}

/** SIGTERM: the copy drains (no new work, handlers finish, acks, close) and exits 0. */
async function drain(copy: Copy): Promise<void> {
  const exit = copy.child.exited();
  await copy.child.stop();
  expect(await exit, `${copy.name} drained and exited cleanly`).toEqual({ code: 0, signal: null });
}

function verdict(s: Scenario, label: string): void {
  s.pump(true);
  const report = s.world.recorder.report();
  const perCopy = s.copies.map((c) => `${c.name} ${c.handled}`).join(', ');
  console.info(`copies chaos (${label}): ${report.summary}; handled per copy: ${perCopy}`);
  if (process.env['AMS_DEBUG_COPIES'] && report.outOfOrder.length > 0) {
    const conv = report.outOfOrder[0]!.slice(0, 3);
    console.info(trace.filter((t) => t.includes(conv) || t.includes('fault')).join('\n'));
  }
  expectClean(report, MESSAGES);
  for (const copy of s.copies) expect(copy.handled, `${copy.name} did work`).toBeGreaterThan(0);
}

describe.skipIf(skipRedis)('chaos: copies of one agent sharing delivery (Redis de-duplication)', () => {
  it('3 then 2 copies, 600 messages over 8 conversations: SIGKILL and restart, rolling deploys both ways, Redis restarted', async () => {
    const s = await scenario(['a', 'b', 'c'], ['a']);
    for (const name of ['d', 'e']) s.preload(name);
    let failoverMs = -1;
    const faults: Fault[] = [
      {
        at: 100,
        name: 'SIGKILL copy a inside a handler, then restart it',
        async run(world) {
          const a = copyNamed(s, 'a');
          a.child.arm('in-handler');
          expect(await a.child.exited()).toEqual({ code: null, signal: 'SIGKILL' });
          const killedAt = Date.now();
          s.pump();
          const waiting = new Set(world.recorder.report().lost);
          expect(waiting.size, 'the killed copy left a message unhandled').toBeGreaterThan(0);
          const before = new Map(s.copies.map((c) => [c.name, c.handled]));
          // The bound of the scenario: the service noticed, redelivered to a sibling, the dead claim lapsed.
          const deadline = killedAt + FAILOVER_BOUND_MS;
          while (world.recorder.report().lost.some((id) => waiting.has(id))) {
            if (Date.now() > deadline)
              throw new Error('the killed copy’s events were not handled within 15 s');
            await pause(5);
            s.pump();
          }
          failoverMs = Date.now() - killedAt;
          const siblings = s.copies.filter((c) => c.name !== 'a' && c.handled > before.get(c.name)!);
          expect(siblings.length, 'a sibling handled the redelivered events').toBeGreaterThan(0);
          await a.child.start();
        },
      },
      {
        at: 200,
        name: 'rolling deploy, new copy first: d starts, then b drains',
        async run() {
          await s.add('d');
          await drain(copyNamed(s, 'b'));
        },
      },
      {
        at: 300,
        name: 'rolling deploy, old copy first: c drains (2 copies left), then e starts',
        async run() {
          await drain(copyNamed(s, 'c'));
          await s.add('e');
        },
      },
      {
        at: 400,
        name: 'Redis killed and started again (empty)',
        async run() {
          await s.redis.stop();
          await pause(200);
          await s.redis.start();
        },
      },
      {
        at: 450,
        name: 'the restarted a drains: d and e finish',
        async run() {
          await drain(copyNamed(s, 'a'));
        },
      },
    ];
    if (process.env['AMS_DEBUG_COPIES']) {
      for (const f of faults) {
        const inner = f.run.bind(f);
        (f as { run: Fault['run'] }).run = async (world) => {
          trace.push(`${Date.now()} fault start: ${f.name}`);
          await inner(world);
          trace.push(`${Date.now()} fault end: ${f.name}`);
        };
      }
    }
    const started = Date.now();
    await s.world.run(faults);
    verdict(s, `${Date.now() - started} ms`);
    console.info(
      `copies chaos: the killed copy's events were handled by a sibling ${failoverMs} ms after the SIGKILL`,
    );
    expect(failoverMs).toBeGreaterThanOrEqual(0);
  }, 120_000);
});
