import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, type CliIo } from '../../../src/cli/run.js';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

function captureIo(): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: { write: (t: string) => (io.out += t) },
    stderr: { write: (t: string) => (io.err += t) },
  };
  return io;
}

describe('runCli', () => {
  it.each([[['--help']], [['-h']], [['help']], [[]]])('prints help for %j and exits 0', async (argv) => {
    const io = captureIo();
    expect(await runCli(argv, io)).toBe(0);
    expect(io.out).toContain('Usage: ams <command>');
    expect(io.out).toContain(pkg.version);
    expect(io.err).toBe('');
  });

  it.each([['--version'], ['-v']])('prints the package version for %s and exits 0', async (flag) => {
    const io = captureIo();
    expect(await runCli([flag], io)).toBe(0);
    expect(io.out).toBe(`${pkg.version}\n`);
  });

  it.each([['frobnicate'], ['toString'], ['--nope']])('exits 2 on the unknown command %s', async (cmd) => {
    const io = captureIo();
    expect(await runCli([cmd], io)).toBe(2);
    expect(io.err).toContain(`unknown command '${cmd}'`);
    expect(io.out).toBe('');
  });
});
