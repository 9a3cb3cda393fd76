import { describe, expect, it } from 'vitest';
import { devHint, runServe } from '../../../src/cli/commands/serve.js';
import { runCli } from '../../../src/cli/run.js';
import { captureIo } from '../../unit/cli/helpers.js';

describe('ams serve --dev', () => {
  it('tells a human on a terminal how to bootstrap a user and an agent, and the line works', async () => {
    const io = captureIo({ tty: true });
    let stop!: () => void;
    const exit = runServe(['--dev', '--port', '0'], io, () => new Promise<void>((r) => (stop = r)));
    while (!io.out.includes('\n')) await new Promise((r) => setTimeout(r, 5));
    const url = /listening on (\S+)/.exec(io.out)![1]!;
    expect(io.out.split('\n')).toHaveLength(2); // still exactly one line on stdout
    expect(io.err).toBe(devHint(url));
    const line = /^ {2}ams (dev bootstrap --base-url \S+) >> \.env$/m.exec(io.err)![1]!;
    const boot = captureIo();
    expect(await runCli(line.split(' '), boot)).toBe(0);
    expect(boot.out).toContain(`AMS_BASE_URL=${url}\n`);
    stop();
    expect(await exit).toBe(0);
  });

  it('prints no hint without --dev, or when stderr is not a terminal', async () => {
    for (const [argv, tty] of [
      [['--port', '0'], true],
      [['--dev', '--port', '0'], false],
    ] as const) {
      const io = captureIo({ tty });
      let stop!: () => void;
      const exit = runServe(argv, io, () => new Promise<void>((r) => (stop = r)));
      while (!io.out.includes('\n')) await new Promise((r) => setTimeout(r, 5));
      stop();
      expect(await exit).toBe(0);
      expect(io.err).toBe('');
    }
  });
});
