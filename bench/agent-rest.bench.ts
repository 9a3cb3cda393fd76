/**
 * Agent REST authentication on the reference server: what the verified-digest
 * cache saves. Figures: one bcrypt check at cost 10 (the first use of a
 * token) against an authenticated agent request once the token is
 * remembered, and an unauthenticated request as the same-run baseline.
 */
import bcrypt from 'bcryptjs';
import { startReferenceServer } from '../packages/dev/src/testing/index.js';
import { fmt, measure, printTable } from './lib/harness.js';

async function get(url: string, token?: string): Promise<void> {
  const res = await fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`unexpected ${res.status}`);
}

export default async function (): Promise<void> {
  const server = await startReferenceServer({
    virtualTime: true,
    passwordHashing: { logN: 10, parallelization: 1 },
  });
  try {
    const userId = await server.control.createUser({ email: 'bench@example.com', password: 'password-123' });
    const { agentId, token } = await server.control.createAgent({ ownerId: userId });
    const agentUrl = `${server.url}/agents/${agentId}`;
    const hash10 = await bcrypt.hash(token, 10);
    const bcrypt10 = await measure('bcrypt compare, cost 10', () => bcrypt.compare(token, hash10), {
      durationMs: 1500,
    });
    await get(agentUrl, token); // first use: one bcrypt check, then remembered
    const baseline = await measure('GET /system/keys (no auth)', () => get(`${server.url}/system/keys`));
    const authed = await measure('GET /agents/:id (agent token, remembered)', () => get(agentUrl, token));
    printTable(
      'Agent token check: bcrypt once, then the remembered SHA-256 digest',
      ['Operation', 'ops/s', 'mean µs'],
      [bcrypt10, baseline, authed].map((m) => [m.name, fmt(m.opsPerSec), fmt(m.meanUs, 1)]),
    );
    console.log(
      `\nbcrypt checks during the run: ${server.control.agentTokenBcryptChecks} (one per token, not per request).`,
    );
  } finally {
    await server.close();
  }
}
