/**
 * A reference server in a process of its own for bench/many-agents: creates
 * one owner and `argv[2]` agents, prints `{ url, agents: [{ agentId, token }] }`
 * as one JSON line on stdout, and runs until stdin closes. The server's own
 * memory stays out of the measured process.
 */
import { startReferenceServer } from '../../packages/dev/src/testing/index.js';

const count = Number(process.argv[2] ?? 1);
const server = await startReferenceServer({
  maxAgentsPerUser: Math.max(50, count),
  agentTokenBcryptCost: 4,
  passwordHashing: { logN: 10, blockSize: 8, parallelization: 1 },
});
const ownerId = await server.control.createUser({
  email: `bench-${Date.now()}@example.com`,
  password: 'bench-password',
});
const agents: { agentId: string; token: string }[] = [];
for (let i = 0; i < count; i += 1) {
  const a = await server.control.createAgent({ ownerId, name: `Bench ${i}` });
  agents.push({ agentId: a.agentId, token: a.token });
}
process.stdout.write(`${JSON.stringify({ url: server.url, agents })}\n`);
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
