/**
 * The reference server for bench/streaming.bench.ts's separate-process rows,
 * alone in its own process so that the relay does not share an event loop
 * with the agent and the UserClient. Prints `{ url }` as one JSON line, then
 * answers each stdin line `code <email>` with `{ code }`, the latest
 * registration code sent to that address (the bench signs its user up over
 * HTTP like any client). Exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { startReferenceServer } from '../../packages/dev/src/testing/index.js';

const server = await startReferenceServer({
  dev: true,
  passwordHashing: { logN: 10, blockSize: 8, parallelization: 1 },
  agentTokenBcryptCost: 4,
});
console.log(JSON.stringify({ url: server.url }));
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [verb, email = ''] = line.split(' ');
  if (verb === 'code') console.log(JSON.stringify({ code: server.control.latestCode(email, 'register') }));
});
lines.on('close', () => void server.close().then(() => process.exit(0)));
