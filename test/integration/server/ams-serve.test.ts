import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import { parseServeArgs, runServe, serveWarnings } from '../../../packages/dev/src/cli/commands/serve.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } },
  };
}

async function firstLine(lines: string[]): Promise<string> {
  for (let i = 0; i < 200 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  if (lines.length === 0) throw new Error('no output');
  return lines[0]!;
}

describe('ams serve', () => {
  it('prints one line with the URL when ready and stops cleanly on SIGTERM', async () => {
    const { out, err, io } = capture();
    const exit = runCli(['serve', '--port', '0', '--dev', '--virtual-time'], io);
    const line = await firstLine(out);
    expect(line).toMatch(
      /^ams serve: listening on http:\/\/127\.0\.0\.1:\d+ \(WebSocket ws:\/\/127\.0\.0\.1:\d+\/ws\)\n$/,
    );
    const url = /listening on (\S+)/.exec(line)![1]!;
    const clock = await fetch(`${url}/_control/clock`);
    expect(await clock.json()).toMatchObject({ data: { virtual: true } });
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    expect(out).toHaveLength(1);
    // Dev mode prints its addresses, then logs each request on stderr (stdout keeps its one line).
    expect(err).toEqual([
      expect.stringMatching(
        /^ams serve: dev console at .*\nams serve: a user and an agent: npx ams dev bootstrap /,
      ),
      expect.stringMatching(/^ams serve: GET \/_control\/clock 200 \d+ms\n$/),
    ]);
    await expect(fetch(`${url}/_control/clock`)).rejects.toThrow();
  });

  it('stops on SIGINT; without --dev the control API is off', async () => {
    const { out, io } = capture();
    const exit = runServe(['--port=0'], io);
    const url = /listening on (\S+)/.exec(await firstLine(out))![1]!;
    const res = await fetch(`${url}/_control/clock`);
    expect(res.status).toBe(404);
    process.emit('SIGINT');
    expect(await exit).toBe(0);
  });

  it('parses its options and refuses bad ones with exit code 2', async () => {
    expect(parseServeArgs(['--port', '8080', '--host', '::1', '--dev'])).toEqual({
      port: 8080,
      host: '::1',
      dev: true,
      virtualTime: false,
      quiet: false,
    });
    expect(parseServeArgs(['--dev', '--quiet'])).toMatchObject({ dev: true, quiet: true });
    expect(parseServeArgs(['--help'])).toBe('help');
    for (const bad of [['--port'], ['--port', '70000'], ['--port', 'x'], ['--host'], ['--bogus']]) {
      expect(parseServeArgs(bad)).toHaveProperty('error');
      const { err, io } = capture();
      expect(await runServe(bad, io)).toBe(2);
      expect(err.join('')).toMatch(/^ams serve: /);
    }
    const { out, io } = capture();
    expect(await runCli(['serve', '--help'], io)).toBe(0);
    expect(out.join('')).toMatch(/--port N/);
  });

  it('warns when --dev would bind a non-loopback interface', () => {
    const args = { port: 0, dev: true, virtualTime: false, quiet: false };
    expect(serveWarnings({ ...args, host: '0.0.0.0' })).toEqual([
      '--dev on a non-loopback interface exposes verification codes.',
    ]);
    expect(serveWarnings({ ...args, host: '127.0.0.1' })).toEqual([]);
    expect(serveWarnings({ ...args, host: '0.0.0.0', dev: false })).toEqual([]);
  });

  it('keeps --help and --version', async () => {
    const { out, io } = capture();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(out.join('')).toMatch(/serve\s+Run the reference server/);
    expect(await runCli(['nope'], capture().io)).toBe(2);
  });

  it('a busy port is named with the fix (--port 0)', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const { io } = capture();
      // The CLI's entry prints the message as `ams: …` and exits 1.
      await expect(runCli(['serve', '--port', String(port)], io)).rejects.toThrow(
        `Port ${port} is in use: try --port 0`,
      );
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });
});
