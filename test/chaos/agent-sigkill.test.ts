/**
 * Chaos: the AGENT PROCESS killed with SIGKILL and started again (issue #11).
 *
 * The agent runs in a child process (test/helpers/sigkill-agent.ts) with a
 * `FileKeyStore` in a temp dir (the restarted process has the same keys) and
 * the Redis de-duplication store (what was handled survives the kill). Its
 * handler appends one line per handled message to a file before returning;
 * the parent counts from that file, so the record is exact whatever the kill.
 *
 * Kills are armed by the parent and made by the process itself at a chosen
 * point, never by timing luck (see sigkill-agent.ts):
 * - `after-complete`: the handler ran, its completion is in Redis, no other
 *   claim is outstanding, and its ack (batched ~10 ms later) never leaves.
 *   The service sends that delivery again to the next process, which must
 *   skip it as a duplicate.
 * - `in-handler`: the handler is killed before its side effect; the message
 *   must come again and be handled once. The killed process leaves claims
 *   in Redis (that event's, and those of events prepared ahead), so the new
 *   process connects only once they lapsed (`claimLeaseMs` after the kill):
 *   see the last test for what happens when it connects sooner.
 *
 * `claimLeaseMs` is 2.5 s (default 10 min) so that a claim left by a killed
 * process lapses within the test instead of holding its message for
 * minutes; it is still far longer than any handler here takes (< 10 ms), so
 * no live claim lapses under a running handler. A new process is kept
 * loaded on standby (agent-child.ts), so restarts take milliseconds, not the
 * seconds tsx needs to load the SDK.
 *
 * A second test shows the docs' table both ways: killed after handling and
 * before acking, a process restarted with the in-memory store handles that
 * message again (at least once); with Redis it does not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentChild, RecordReader } from '../helpers/agent-child.js';
import type { KillPoint } from '../helpers/sigkill-agent.js';
import { expectClean, startChaos, type ChaosWorld, type Fault } from '../helpers/chaos.js';
import { messageText } from '../helpers/chaos-recorder.js';
import { connectRedis, deleteKeys, requireRedisUrl, skipRedis, uniquePrefix } from '../helpers/redis.js';

const CLAIM_LEASE_MS = 2_500;

/** Everything one test started, closed by `afterEach`. */
interface Run {
  world?: ChaosWorld;
  child?: AgentChild;
  redis?: Redis;
  prefix?: string;
  dir: string;
  poller?: ReturnType<typeof setInterval>;
}

let run: Run | undefined;

afterEach(async () => {
  const r = run;
  run = undefined;
  if (r === undefined) return;
  if (r.poller !== undefined) clearInterval(r.poller);
  await r.child?.stop();
  await r.world?.close();
  if (r.redis !== undefined && r.prefix !== undefined) {
    await deleteKeys(r.redis, r.prefix);
    r.redis.disconnect();
  }
  rmSync(r.dir, { recursive: true, force: true });
});

/** What the agent process recorded besides handled messages. */
interface Seen {
  /** Duplicates it skipped (`duplicate` notifications). */
  duplicates: number;
  /** Claims it found held by someone else (a killed process). */
  inFlight: number;
}

interface Setup {
  readonly world: ChaosWorld;
  readonly child: AgentChild;
  /** Reads the record file into the world's recorder; returns what else was seen so far. */
  readonly pump: () => Seen;
}

/**
 * A chaos world whose agent is a child process; the record file is read into
 * the world's recorder every 5 ms (and on demand with `pump`).
 */
async function setup(options: {
  conversations: number;
  messages: number;
  redis: boolean;
  armFirst?: KillPoint;
  claimLeaseMs?: number;
}): Promise<Setup> {
  const r: Run = { dir: mkdtempSync(join(tmpdir(), 'ams-sigkill-')) };
  run = r;
  let redis: { url: string; prefix: string } | undefined;
  if (options.redis) {
    r.redis = await connectRedis();
    r.prefix = uniquePrefix('sigkill');
    redis = { url: requireRedisUrl(), prefix: r.prefix };
  }
  const reader = new RecordReader(join(r.dir, 'record.log'));
  const seen: Seen = { duplicates: 0, inFlight: 0 };
  const world = await startChaos({
    transport: 'websocket',
    conversations: options.conversations,
    messages: options.messages,
    launch: async (w) => {
      r.child = new AgentChild({
        baseUrl: w.server.url,
        agentId: w.agentId,
        token: w.account.token,
        keyDir: join(r.dir, 'keys'),
        recordFile: reader.file,
        claimLeaseMs: options.claimLeaseMs ?? CLAIM_LEASE_MS,
        ...(redis === undefined ? {} : { redis }),
      });
      await r.child.start();
      if (options.armFirst !== undefined) r.child.arm(options.armFirst);
    },
  });
  r.world = world;
  const pump = (): Seen => {
    for (const line of reader.read()) {
      if (line.startsWith('handled ')) world.recorder.handled(line.slice('handled '.length).split('\t')[0]);
      else if (line.startsWith('duplicate ')) seen.duplicates++;
      else if (line.startsWith('in_flight ')) seen.inFlight++;
    }
    return { ...seen };
  };
  r.poller = setInterval(pump, 5);
  return { world, child: r.child!, pump };
}

/**
 * Kills the agent process at `point` once `at` messages were sent, and
 * starts it again: at once after `after-complete` (it left no claim), once
 * its claims lapsed after `in-handler`.
 */
function sigkillFault(child: AgentChild, at: number, point: KillPoint): Fault {
  return {
    at,
    name: `agent SIGKILL ${point} at ${at}`,
    async run() {
      const exit = await child.killAndRestart(point, point === 'in-handler' ? CLAIM_LEASE_MS + 50 : 0);
      expect(exit, `the agent process killed ${point} at ${at}`).toEqual({ code: null, signal: 'SIGKILL' });
    },
  };
}

describe.skipIf(skipRedis)('chaos: agent process SIGKILL (Redis de-duplication, file keys)', () => {
  it('600 messages over 4 conversations, 5 SIGKILLs: none lost, none twice, none out of order', async () => {
    const started = Date.now();
    const { world, child, pump } = await setup({ conversations: 4, messages: 600, redis: true });
    const points: KillPoint[] = [
      'after-complete',
      'in-handler',
      'after-complete',
      'in-handler',
      'after-complete',
    ];
    const faults = points.map((point, i) => sigkillFault(child, (i + 1) * 100, point));
    await world.run(faults);
    const seen = pump();
    const report = world.recorder.report();
    console.info(
      `agent SIGKILL chaos: ${report.summary}; ${child.starts} processes, ` +
        `${seen.duplicates} redelivered duplicates skipped, ${Date.now() - started} ms`,
    );
    expectClean(report, 600);
    expect(child.exits.map((e) => e.signal)).toEqual(points.map(() => 'SIGKILL'));
    expect(child.starts).toBe(6);
    // Each after-complete kill left at least one handled delivery unacknowledged, skipped when it came again.
    expect(seen.duplicates).toBeGreaterThanOrEqual(points.filter((p) => p === 'after-complete').length);
    // No process found a claim of a killed one still held (they lapsed before it connected).
    expect(seen.inFlight).toBe(0);
  }, 60_000);
});

describe('agent process killed after handling, before acking', () => {
  async function killedOnce(redis: boolean): Promise<{ duplicated: readonly string[]; skipped: number }> {
    const { world, child, pump } = await setup({
      conversations: 1,
      messages: 4,
      redis,
      armFirst: 'after-complete',
    });
    const side = world.sides[0]!;
    const send = async (seq: number): Promise<void> => {
      const res = await side.postWire(await side.seal({ type: 'text', text: messageText(0, seq) }));
      expect(res.status, res.text).toBeLessThan(300);
      world.recorder.sent(0, seq);
    };
    await send(0);
    // The process handles c0#0000, records its completion and kills itself before the ack leaves.
    expect(await child.exited()).toEqual({ code: null, signal: 'SIGKILL' });
    pump();
    expect(world.recorder.distinctHandled).toBe(1);
    await child.start();
    for (let seq = 1; seq < 4; seq++) await send(seq);
    await world.until(async () => {
      pump();
      const view = await world.server.control.agent(world.agentId);
      return world.recorder.distinctHandled === 4 && view?.pending_count === 0;
    }, 'the 4 messages handled and acknowledged');
    const skipped = pump().duplicates;
    const report = world.recorder.report();
    expect(report.counts.lost).toBe(0);
    expect(report.counts.outOfOrder).toBe(0);
    return { duplicated: report.duplicated, skipped };
  }

  it('in-memory store (default): the restarted process handles that message again (at least once)', async () => {
    const { duplicated, skipped } = await killedOnce(false);
    expect(duplicated).toEqual(['c0#0000×2']);
    expect(skipped).toBe(0);
  });

  it.skipIf(skipRedis)(
    'Redis store: the restarted process skips it as a duplicate (exactly once)',
    async () => {
      const { duplicated, skipped } = await killedOnce(true);
      expect(duplicated).toEqual([]);
      // c0#0000 came again and was skipped; relation.established may have come again too, when the
      // kill stopped its ack in the same 10 ms batch (skipped as well: still handled once).
      expect(skipped).toBeGreaterThanOrEqual(1);
      expect(skipped).toBeLessThanOrEqual(2);
    },
  );
});

/**
 * A process killed inside a handler leaves its claims in Redis until
 * `claimLeaseMs` — that event's, and those of events prepared ahead. A new
 * process that connects before they lapse gets the redeliveries and finds
 * their claims held by another process: the event waits in its conversation
 * (the later ones stay behind it) and asks the store again every second
 * until the claim lapses, then it is handled — once, and in order. (Before
 * this was fixed, the event was skipped as busy, its conversation's later
 * events were handled past it, and with the default lease it was lost.)
 */
describe.skipIf(skipRedis)('agent process killed inside a handler, restarted before its claim lapses', () => {
  it('the redelivered event waits for the dead claim to lapse, then is handled once, before the later ones', async () => {
    const { world, child, pump } = await setup({
      conversations: 1,
      messages: 4,
      redis: true,
      armFirst: 'in-handler',
      claimLeaseMs: 3_000,
    });
    const side = world.sides[0]!;
    const send = async (seq: number): Promise<void> => {
      const res = await side.postWire(await side.seal({ type: 'text', text: messageText(0, seq) }));
      expect(res.status, res.text).toBeLessThan(300);
      world.recorder.sent(0, seq);
    };
    await send(0);
    expect(await child.exited()).toEqual({ code: null, signal: 'SIGKILL' });
    pump();
    expect(world.recorder.distinctHandled).toBe(0);
    await child.start();
    for (let seq = 1; seq < 4; seq++) await send(seq);
    await world.until(() => (pump(), world.recorder.distinctHandled >= 4), 'all four handled');
    expectClean(world.recorder.report(), 4);
    await world.until(
      async () => (await world.server.control.agent(world.agentId))?.pending_count === 0,
      'every delivery acknowledged',
    );
  }, 30_000);
});
