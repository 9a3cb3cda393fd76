/**
 * `npm start` runs the demo: reference server, a user, two echo bots
 * (WebSocket and webhook), a 1.2 MB message by `ref`, one webhook attempt
 * failed by a flaky proxy and retried by the server, and a summary.
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
  it('runs end to end, echoes every message once by both transports, shows a retry and the summary', async () => {
    const { code, stdout, stderr } = await run('npx', ['tsx', 'examples/demo.ts']);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(
      '5. summary: 4 messages sent, 4 echoes received; each of the 4 messages handled exactly once',
    );
    // The flaky proxy fails one attempt after the bot handled it: the server retries it (its delivery
    // logs count 2 attempts) and the bot skips the copy by its delivery id.
    const failed =
      /✗ flaky proxy: the bot handled delivery (…[0-9a-f]{8}) and answered 200, but the service got 503/.exec(
        stdout,
      );
    expect(failed, stdout).not.toBeNull();
    expect(stdout).toContain(`↻ delivery ${failed![1]!} came again`);
    expect(stdout).toContain('(same delivery id: its handler did not run a second time)');
    expect(stdout).toMatch(
      /messages delivered: 2 by WebSocket \+ 2 by webhook, plus 2 relation\.established \(4 webhook requests\); retries: 1 webhook, \d+ REST/,
    );
    expect(stdout).toContain('the webhook bot skipped 1 duplicate)');
    expect(stdout).toContain('← echo-ws: echo: hello over WebSocket');
    expect(stdout.split('← echo-webhook: echo: hello over webhook\n')).toHaveLength(2); // exactly once
    expect(stdout).toContain('with wire_envelope null and a ref');
    expect(stdout).toContain('← echo-webhook: echo: got your 1.2 MB message (via webhook)');
    expect(stdout).toContain('← echo-ws asks (artifact, confirm, revision 1): "Archive this conversation?"');
    expect(stdout).toContain('→ echo-ws: artifact_response approved');
    expect(stdout).toMatch(
      /← echo-ws streams: "streamed, sealed once, then one small AEAD frame per delta" \(\d+ deltas, transcript signature verified by the user\)/,
    );
    expect(stdout).toContain('demo-cheap'); // the cheap Argon2id parameters are said out loud
    expect(stdout).not.toMatch(/hsk_[A-Za-z0-9]{40}/); // no agent token printed
  }, 40_000);
});
