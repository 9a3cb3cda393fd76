/**
 * The cost of the status keep-alive on a busy agent (#26;
 * `npm run bench -- status`).
 *
 * Through the reference server (real clock): 8 users, each in a conversation
 * with the same agent, send `BENCH_STATUS_MESSAGES` messages in all (8 at a
 * time); the agent's handler works for `BENCH_STATUS_WORK_MS` (an awaited
 * timer standing in for a model call) and ends without replying (so each
 * turn that showed an indicator posts a clear as well). Messages handled per
 * second, and the status posts they cost, for:
 *
 * - baseline: `status: false` (no automatic indicator), the same run;
 * - default: the automatic indicator after 500 ms (turns this short post nothing);
 * - worst case: `delayMs: 0`, every turn posts "working" then "idle"
 *   (coalesced to one post per second per conversation).
 *
 * Each variant is one fresh world, measured `BENCH_STATUS_ROUNDS` times
 * (median), interleaved with the others (a different one first in each round).
 */
import { performance } from 'node:perf_hooks';
import type { StatusIndicatorOptions } from '../packages/sdk/src/agent/presence.js';
import type { UserClient } from '../packages/sdk/src/client/index.js';
import { systemClock } from '../packages/sdk/src/core/clock.js';
import { createTestWorld, type TestWorld } from '../packages/dev/src/testing/index.js';
import { signUpUser } from '../packages/dev/src/testing/test-world-parts.js';
import { fmt, printTable } from './lib/harness.js';

const MESSAGES = Number(process.env['BENCH_STATUS_MESSAGES'] ?? 400);
const WORK_MS = Number(process.env['BENCH_STATUS_WORK_MS'] ?? 20);
const ROUNDS = Number(process.env['BENCH_STATUS_ROUNDS'] ?? 3);
const USERS = 8;

interface Variant {
  readonly name: string;
  readonly status: StatusIndicatorOptions | false;
}

const VARIANTS: readonly Variant[] = [
  { name: 'baseline (status: false)', status: false },
  { name: 'default indicator (after 500 ms)', status: {} },
  { name: 'worst case (delayMs: 0)', status: { delayMs: 0 } },
];

interface Run {
  readonly world: TestWorld;
  readonly users: { client: UserClient; conversationId: string }[];
  handled: number;
  statusPosts: number;
  onHandled: (() => void) | undefined;
}

async function start(v: Variant): Promise<Run> {
  const world = await createTestWorld({
    server: {
      clock: systemClock,
      passwordHashing: { logN: 10, blockSize: 8, parallelization: 1 },
      agentTokenBcryptCost: 4,
    },
    agent: { options: { status: v.status, clock: systemClock, concurrency: 16, logger: false } },
  });
  const users = [{ client: world.user, conversationId: world.conversationId }];
  for (let i = 1; i < USERS; i++) {
    const client = await signUpUser(world.server, `Bench user ${i}`);
    users.push({ client, conversationId: (await client.addAgent(world.agentId)).conversationId });
  }
  const run: Run = { world, users, handled: 0, statusPosts: 0, onHandled: undefined };
  world.agent.on('message.new', async () => {
    await new Promise((resolve) => setTimeout(resolve, WORK_MS));
    run.handled++;
    run.onHandled?.();
  });
  world.agent.on('rateLimited', () => undefined);
  await world.agent.connect();
  // Status posts, counted where the agent's REST client sends them.
  const rest = world.agent.api.rest;
  const request = rest.request.bind(rest);
  rest.request = ((o: { path: string }) => {
    if (o.path.endsWith('/status')) run.statusPosts++;
    return request(o as never);
  }) as typeof rest.request;
  return run;
}

/** Sends `MESSAGES` (8 at a time, round robin over the users) and times until all are handled. */
async function round(run: Run): Promise<{ perSec: number; posts: number }> {
  run.handled = 0;
  const postsBefore = run.statusPosts;
  const done = new Promise<void>((resolve) => {
    run.onHandled = () => {
      if (run.handled === MESSAGES) resolve();
    };
  });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    run.users.map(async (u) => {
      while (next < MESSAGES) {
        const i = next++;
        await u.client.send(u.conversationId, { type: 'text', text: `m${i}` });
      }
    }),
  );
  await done;
  const ms = performance.now() - t0;
  // Let the trailing clears go (coalescing interval), so the next round starts idle.
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  return { perSec: (MESSAGES / ms) * 1000, posts: run.statusPosts - postsBefore };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function main(): Promise<void> {
  const runs = [];
  for (const v of VARIANTS) runs.push(await start(v));
  const results = VARIANTS.map(() => ({ perSec: [] as number[], posts: [] as number[] }));
  try {
    for (const run of runs) await round(run); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      // A different variant goes first in each round, so a load change on the machine is shared out.
      for (let k = 0; k < runs.length; k++) {
        const i = (k + r) % runs.length;
        const x = await round(runs[i]!);
        results[i]!.perSec.push(x.perSec);
        results[i]!.posts.push(x.posts);
      }
    }
  } finally {
    for (const run of runs) {
      for (const u of run.users.slice(1)) await u.client.signOut().catch(() => undefined);
      await run.world.close();
    }
  }
  const base = median(results[0]!.perSec);
  printTable(
    `Status keep-alive on a busy agent: ${MESSAGES} messages from ${USERS} users, ${WORK_MS} ms of work per turn (median of ${ROUNDS})`,
    ['variant', 'messages/s', 'vs baseline', 'status posts per run'],
    VARIANTS.map((v, i) => {
      const perSec = median(results[i]!.perSec);
      return [v.name, fmt(perSec), `${fmt((perSec / base) * 100)} %`, fmt(median(results[i]!.posts))];
    }),
  );
}
