/**
 * Chaos: the AGENT PROCESS killed with SIGKILL and started again (issue #11).
 *
 * The agent runs in a child process (test/helpers/agent-process.ts) with a
 * `FileKeyStore` in a temp dir (the restarted process has the same keys) and
 * the Redis de-duplication store (what was handled survives the kill). Its
 * handler appends one line per handled message to a file before returning;
 * the parent counts from that file, so the record is exact whatever the kill.
 *
 * Kills are armed by the parent and made by the process itself at a chosen
 * point, never by timing luck (see agent-process.ts):
 * - `after-complete`: the handler ran, its completion is in Redis, no other
 *   claim is outstanding, and its ack (batched ~10 ms later) never leaves.
 *   The service sends that delivery again to the next process, which must
 *   skip it as a duplicate.
 * - `in-handler`: the handler is killed before its side effect; the message
 *   must come again and be handled once.
 *
 * `claimLeaseMs` is 2.5 s (default 10 min) so that a claim left by a killed
 * process (the event in the killed handler, events prepared ahead) lapses
 * well within the test instead of holding its message for minutes; it is
 * still far longer than any handler here takes (< 10 ms), so no live claim
 * lapses under a running handler.
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
import type { KillPoint } from '../helpers/agent-process.js';
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

interface Setup {
  readonly world: ChaosWorld;
  readonly child: AgentChild;
  /** Reads the record file into the world's recorder; returns the duplicates skipped so far. */
  readonly pump: () => number;
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
  let duplicates = 0;
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
        claimLeaseMs: CLAIM_LEASE_MS,
        ...(redis === undefined ? {} : { redis }),
      });
      await r.child.start();
      if (options.armFirst !== undefined) r.child.arm(options.armFirst);
    },
  });
  r.world = world;
  const pump = (): number => {
    for (const line of reader.read()) {
      if (line.startsWith('handled ')) world.recorder.handled(line.slice('handled '.length));
      else if (line.startsWith('duplicate ')) duplicates++;
    }
    return duplicates;
  };
  r.poller = setInterval(pump, 5);
  return { world, child: r.child!, pump };
}

/** Kills the agent process at `point` once `at` messages were sent, and starts it again. */
function sigkillFault(child: AgentChild, at: number, point: KillPoint): Fault {
  return {
    at,
    name: `agent SIGKILL ${point} at ${at}`,
    async run() {
      const exit = await child.killAndRestart(point);
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
      'after-complete',
      'after-complete',
      'after-complete',
      'after-complete',
    ];
    const faults = points.map((point, i) => sigkillFault(child, (i + 1) * 100, point));
    await world.run(faults);
    const duplicates = pump();
    const report = world.recorder.report();
    console.info(
      `agent SIGKILL chaos: ${report.summary}; ${child.starts} processes, ` +
        `${duplicates} redelivered duplicates skipped, ${Date.now() - started} ms`,
    );
    expectClean(report, 600);
    expect(child.exits).toHaveLength(5);
    expect(child.starts).toBe(6);
    // Each after-complete kill left at least one handled delivery unacknowledged, skipped when it came again.
    expect(duplicates).toBeGreaterThanOrEqual(points.filter((p) => p === 'after-complete').length);
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
    expect(world.recorder.distinctHandled).toBe(1);
    await child.start();
    for (let seq = 1; seq < 4; seq++) await send(seq);
    await world.until(async () => {
      pump();
      const view = await world.server.control.agent(world.agentId);
      return world.recorder.distinctHandled === 4 && view?.pending_count === 0;
    }, 'the 4 messages handled and acknowledged');
    const skipped = pump();
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
      expect(skipped).toBe(1);
    },
  );
});
