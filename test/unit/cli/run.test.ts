import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import { captureIo } from './helpers.js';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('runCli', () => {
  it.each([[['--help']], [['-h']], [['help']], [[]]])('prints help for %j and exits 0', async (argv) => {
    const io = captureIo();
    expect(await runCli(argv, io)).toBe(0);
    expect(io.out).toContain('Usage: ams [--env-file PATH] <command>');
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

describe('runCli subcommands', () => {
  it.each([
    [['serve', '--help'], 'Usage: ams serve'],
    [['dev', 'bootstrap', '--help'], 'Usage: ams dev bootstrap'],
    [['keygen', '--help'], 'Usage: ams keygen'],
    [['keys', 'init', '--help'], 'Usage: ams keys init'],
    [['webhook', 'sign', '--help'], 'Usage: ams webhook sign'],
    [['webhook', 'verify', '-h'], 'Usage: ams webhook verify'],
    [['logs', '--help'], 'Usage: ams logs'],
    [['token', 'rotate', '--help'], 'Usage: ams token rotate'],
    [['token', 'revoke', '--help'], 'Usage: ams token revoke'],
    [['webhook', '--help'], 'Usage: ams webhook <command>'],
    [['dev', 'help'], 'Usage: ams dev <command>'],
    [['token', '-h'], 'Usage: ams token <rotate|revoke>'],
  ])('%j prints its help and exits 0', async (argv, usage) => {
    const io = captureIo();
    expect(await runCli(argv, io)).toBe(0);
    expect(io.out.startsWith(usage)).toBe(true);
    expect(io.err).toBe('');
  });

  it('lists every command in the top-level help', async () => {
    const io = captureIo();
    await runCli(['--help'], io);
    for (const c of [
      'serve',
      'dev bootstrap',
      'keygen',
      'keys init',
      'webhook sign',
      'webhook verify',
      'logs',
      'token rotate',
      'token revoke',
    ]) {
      expect(io.out).toMatch(new RegExp(`\\n  ${c}\\s`));
    }
  });

  it.each([
    [['webhook']],
    [['webhook', 'frob']],
    [['dev', 'nope']],
    [['token']],
    [['token', 'rotate', '--nope']],
    [['keygen', 'extra']],
  ])('%j is a usage error (exit 2, nothing on stdout)', async (argv) => {
    const io = captureIo();
    expect(await runCli(argv, io)).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).not.toBe('');
  });
});
