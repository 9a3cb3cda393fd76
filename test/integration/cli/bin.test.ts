import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { startAgentServer } from '../../helpers/server-agents.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const BIN = join(ROOT, 'packages', 'dev', 'src', 'cli', 'index.ts');

/** Runs the real bin in a child process; resolves with its exit code and output. */
function ams(args: string[], input = ''): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [BIN, ...args], { cwd: ROOT, env: { ...process.env, AMS_WEBHOOK_SECRET: '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(input);
  });
}

describe('the ams bin (spawned)', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startAgentServer();
  });
  afterAll(() => server.close());

  it('exits 0 / 1 / 2 for success, rejection and usage errors, and ends after network use', async () => {
    const secret = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==';
    const capture = 'X-Service-Timestamp: 1\nX-Service-Delivery-Id: abc\n\n{}';
    const [ok, rejected, usage] = await Promise.all([
      ams(['dev', 'bootstrap', '--base-url', server.url]),
      ams(['webhook', 'verify', '--secret', secret], capture),
      ams(['logs', '--bogus']),
    ]);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/^AMS_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nAMS_AGENT_ID=/);
    expect(rejected.code, rejected.err).toBe(1);
    expect(rejected.out).toContain('missing header: X-Service-Signature');
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("ams logs: Unknown option '--bogus'. Run 'ams logs --help'.");
  });
});
