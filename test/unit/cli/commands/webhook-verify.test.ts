import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../packages/dev/src/cli/run.js';
import { captureIo } from '../helpers.js';

const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==';
const OTHER = 'b3RoZXItb3RoZXItb3RoZXItb3RoZXItb3RoZXItb3RoZXI=';
const TS = '1767225600';
const AT = '2026-01-01T00:00:10Z';

/** A capture printed by `ams webhook sign --print`. */
async function printed(extra: string[] = []): Promise<string> {
  const io = captureIo({ env: { AMS_WEBHOOK_SECRET: SECRET } });
  expect(await runCli(['webhook', 'sign', '--print', '--timestamp', TS, ...extra], io)).toBe(0);
  return io.out;
}

describe('ams webhook verify', () => {
  it('accepts what sign --print wrote (HTTP form, from stdin) and exits 0', async () => {
    const io = captureIo({ stdin: await printed(), env: { AMS_WEBHOOK_SECRET: SECRET } });
    expect(await runCli(['webhook', 'verify', '--now', AT], io)).toBe(0);
    expect(io.out).toMatch(
      /^valid: signature matches secret #1; timestamp 10 s in the past \(tolerance 300 s\); delivery [0-9a-f-]{36}; event message\.new\n$/,
    );
    expect(io.err).toBe('');
  });

  it('accepts the JSON form from a file, and prints JSON with --json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ams-verify-'));
    const file = join(dir, 'capture.json');
    writeFileSync(file, await printed(['--json', '--agent-id', 'agent-1']));
    const io = captureIo();
    expect(
      await runCli(
        ['webhook', 'verify', '--secret', OTHER, '--secret', SECRET, '--file', file, '--now', AT, '--json'],
        io,
      ),
    ).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({
      valid: true,
      receiver_answer: { status: 200 },
      problems: [],
      matched_secret: 2,
      skew_seconds: 10,
      timestamp: Number(TS),
      event_type: 'message.new',
    });
  });

  it('exits 1 and says why: wrong secret, with the honest wording', async () => {
    const io = captureIo({ stdin: await printed() });
    expect(await runCli(['webhook', 'verify', '--secret', OTHER, '--now', AT], io)).toBe(1);
    expect(io.out).toBe(
      'invalid: a receiver would answer 401 WEBHOOK_SIGNATURE_INVALID\n' +
        '  - signature does not match this body under this secret: wrong secret or altered body (the two cannot be told apart cryptographically)\n',
    );
  });

  it('exits 1 for skew, naming seconds and direction; --json carries the details', async () => {
    const io = captureIo({ stdin: await printed() });
    expect(
      await runCli(['webhook', 'verify', '--secret', SECRET, '--now', '2026-01-01T00:10:00Z', '--json'], io),
    ).toBe(1);
    const result = JSON.parse(io.out) as { problems: { code: string; details: unknown }[] };
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'WEBHOOK_TIMESTAMP_SKEW',
        details: { skew_seconds: 600, direction: 'past', tolerance_seconds: 300 },
      }),
    ]);
  });

  it('exits 1 for a missing header and an altered body captured by an editor', async () => {
    const capture = (await printed()).replace(/X-Service-Timestamp: \d+\r\n/, '').replace('"v1"', '"v1" ');
    const io = captureIo({ stdin: capture });
    expect(await runCli(['webhook', 'verify', '--secret', SECRET, '--now', AT], io)).toBe(1);
    expect(io.out).toContain('  - missing header: X-Service-Timestamp\n');
    expect(io.out).toContain('note: Content-Length says');
  });

  it.each([
    [[], /--secret \(or AMS_WEBHOOK_SECRET\) is required/],
    [['--secret', 'short'], /secret/],
    [['--secret', SECRET, '--now', 'yesterday'], /--now must be Unix seconds/],
    [['--secret', SECRET, '--bogus'], /Unknown option '--bogus'/],
  ])('exits 2 on bad usage %j', async (argv, message) => {
    const io = captureIo({ stdin: await printed() });
    expect(await runCli(['webhook', 'verify', ...argv], io)).toBe(2);
    expect(io.err).toMatch(message);
    expect(io.err).not.toContain('short');
    expect(io.out).toBe('');
  });

  it('exits 2 for a capture in neither format, 1 for a missing file', async () => {
    const bad = captureIo({ stdin: 'not a capture at all\n' });
    expect(await runCli(['webhook', 'verify', '--secret', SECRET], bad)).toBe(2);
    expect(bad.err).toMatch(/capture: line 1 is neither a request line nor a "Name: value" header/);
    const missing = captureIo();
    expect(
      await runCli(['webhook', 'verify', '--secret', SECRET, '--file', '/nonexistent/capture'], missing),
    ).toBe(1);
    expect(missing.err).toMatch(/ENOENT/);
  });
});
