/**
 * Many agents in one process (`npx tsx bench/run.ts many-agents`): heap and
 * RSS per connected, idle Agent at 1, 100 and 1,000 agents (override with
 * BENCH_AGENTS=1,100,1000), each beside the baselines of the same run: the
 * process after loading the SDK with no agent, and with the first agent
 * connected (which loads the SDK's lazy parts once); the per-agent figures
 * are for the agents after the first. The reference server
 * runs in a child process so its memory is not counted; keys are in memory.
 * Target (issue #25): ≤ 64 KB of heap per idle connected agent, and 1,000
 * agents connected in one process.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent } from '../packages/sdk/src/index.js';
import { MemoryKeyStore } from '../packages/sdk/src/crypto/index.js';
import { printTable } from './lib/harness.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const counts = (process.env['BENCH_AGENTS'] ?? '1,100,1000').split(',').map(Number);

interface Served {
  readonly url: string;
  readonly agents: readonly { agentId: string; token: string }[];
}

async function serve(count: number): Promise<{ served: Served; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('./lib/agents-server.ts', import.meta.url).pathname, String(count)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    served: JSON.parse(line) as Served,
    stop: async () => {
      child.stdin!.end();
      await once(child, 'exit');
    },
  };
}

function memory(): { heap: number; rss: number } {
  for (let i = 0; i < 3; i += 1) gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

export default async function manyAgents(): Promise<void> {
  const rows: string[][] = [];
  for (const n of counts) {
    const { served, stop } = await serve(n);
    const empty = memory();
    const agents: Agent[] = [];
    const make = (a: { agentId: string; token: string }): Agent =>
      new Agent({
        baseUrl: served.url,
        agentId: a.agentId,
        token: a.token,
        keyStore: new MemoryKeyStore(),
        logger: false,
        shutdownSignals: false,
      });
    // The first agent loads the SDK's lazy parts: measured apart, then the baseline for the others.
    const first = make(served.agents[0]!);
    await first.connect();
    agents.push(first);
    const before = memory();
    const started = performance.now();
    for (let i = 1; i < n; i += 50) {
      const batch = served.agents.slice(i, i + 50).map(make);
      await Promise.all(batch.map((agent) => agent.connect()));
      agents.push(...batch);
    }
    const connectMs = performance.now() - started;
    const after = memory();
    const others = Math.max(1, n - 1);
    rows.push([
      String(n),
      `${mb(empty.heap)} / ${mb(empty.rss)}`,
      `${kb(before.heap - empty.heap)} / ${kb(before.rss - empty.rss)}`,
      `${mb(after.heap)} / ${mb(after.rss)}`,
      n === 1 ? '—' : kb((after.heap - before.heap) / others),
      n === 1 ? '—' : kb((after.rss - before.rss) / others),
      `${(connectMs / 1000).toFixed(1)} s`,
    ]);
    await Promise.all(agents.map((agent) => agent.close()));
    await stop();
  }
  printTable(
    'Idle connected agents in one process (server in a child process)',
    [
      'agents',
      'baseline heap / RSS (no agent)',
      'first agent heap / RSS',
      'all connected heap / RSS',
      'heap per further agent',
      'RSS per further agent',
      'connect the others',
    ],
    rows,
  );
}
