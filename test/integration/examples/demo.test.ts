/**
 * `npm start` runs the demo: reference server, a user, two echo bots
 * (WebSocket and webhook), a 1.2 MB message by `ref`, and a summary line.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function run(
  command: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: process.cwd(), env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the demo (npm start)', () => {
  it('runs end to end, echoes every message by both transports and prints the summary', async () => {
    const { code, stdout, stderr } = await run('npx', ['tsx', 'examples/demo.ts']);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(
      /5\. summary: 4 messages sent, 4 echoes received; deliveries \d+ by WebSocket \+ \d+ by webhook/,
    );
    expect(stdout).toContain('← echo-ws: echo: hello over WebSocket');
    expect(stdout).toContain('← echo-webhook: echo: hello over webhook');
    expect(stdout).toContain('with wire_envelope null and a ref');
    expect(stdout).toContain('← echo-webhook: echo: got your 1.2 MB message (via webhook)');
    expect(stdout).toContain('demo-cheap'); // the cheap Argon2id parameters are said out loud
    expect(stdout).not.toMatch(/hsk_[A-Za-z0-9]{40}/); // no agent token printed
  }, 40_000);
});
