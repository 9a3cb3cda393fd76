/**
 * The reference server for bench/files.bench.ts, in its own process so that
 * its hashing and disk writes do not share the SDK's core or show in the
 * SDK's RSS. Prints `{ url, agentId, token }` as one JSON line, waits for a
 * line on stdin (the agent has registered its keys), then has its user add
 * the agent and prints `{ conversationId }`. Each later line `cpu` prints
 * `{ user, system }`, this process's CPU time so far in µs (so the bench can
 * count the server's CPU per MB too). Exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { startReferenceServer } from '../../packages/dev/src/testing/index.js';
import { signUpUser } from '../../packages/dev/src/testing/test-world-parts.js';

const server = await startReferenceServer({
  dev: true,
  passwordHashing: { logN: 10, blockSize: 8, parallelization: 1 },
  agentTokenBcryptCost: 4,
});
const user = await signUpUser(server, 'Bench user');
const agent = await server.control.createAgent({ ownerId: user.session!.userId, name: 'bench' });
console.log(JSON.stringify({ url: server.url, agentId: agent.agentId, token: agent.token }));
const lines = createInterface({ input: process.stdin });
let added = false;
lines.on('line', (line) => {
  if (line === 'cpu') {
    console.log(JSON.stringify(process.cpuUsage()));
    return;
  }
  if (added) return;
  added = true;
  void user
    .addAgent(agent.agentId)
    .then(({ conversationId }) => console.log(JSON.stringify({ conversationId })));
});
lines.on('close', () => void server.close().then(() => process.exit(0)));
