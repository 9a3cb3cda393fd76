/**
 * `ams dev chat` as a person uses it: in a terminal. The CLI runs on a
 * pseudo-terminal (util-linux `script`, in every Debian-based image: package
 * bsdutils, essential), so its input goes through the terminal's line
 * discipline: typed lines end with Enter (CR), Ctrl-D is the end of input and
 * Ctrl-C is a SIGINT from the terminal, not from `kill`. (It found a race: the
 * chat printed its ready line before it handled SIGINT, so a quick Ctrl-C
 * ended it with exit 130.)
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { startWorld, waitFor } from '../../helpers/agent-world.js';
import { bootstrap, echoAgent } from './dev-owner.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const BIN = join(ROOT, 'packages', 'dev', 'src', 'cli', 'index.ts');
const CTRL_C = '\x03';
const CTRL_D = '\x04';

interface Terminal {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything the terminal showed: the CLI's stdout and stderr, and the typed input echoed. */
  screen(): string;
  type(keys: string): void;
  exit: Promise<number | null>;
}

/** `ams dev chat` on a pseudo-terminal of its own. */
function chatInTerminal(env: Record<string, string>): Terminal {
  // -q quiet, -f flush output at once, -e exit with the child's status, -c the command.
  // node --import tsx, not the tsx wrapper: one process, so Ctrl-C reaches the CLI itself.
  // `exec`: `script` runs the command through $SHELL -c, and a shell that stays as the
  // parent (dash does) dies of the terminal's SIGINT itself, so `script -e` reported 130
  // whatever the CLI did. SHELL is fixed so the test does not depend on the caller's.
  const child = spawn(
    'script',
    ['-qfec', `exec '${process.execPath}' --import tsx '${BIN}' dev chat`, '/dev/null'],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, SHELL: '/bin/sh', TERM: 'dumb' },
    },
  );
  let screen = '';
  child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
  child.stderr.on('data', (d: Buffer) => (screen += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, screen: () => screen, type: (keys) => child.stdin.write(keys), exit };
}

describe('ams dev chat on a terminal', () => {
  let server: ReferenceServer;
  let env: Record<string, string>;
  let agent: Agent;
  beforeAll(async () => {
    server = await startWorld();
    env = await bootstrap(server);
    agent = await echoAgent(server, env);
  });
  afterAll(async () => {
    await agent.close();
    await server.close();
  });

  it('typed lines (Enter) are answered as they arrive; Ctrl-D ends with exit 0', async () => {
    const term = chatInTerminal(env);
    await waitFor(
      () => term.screen().includes('Ctrl-D ends'),
      `the chat to start (${term.screen()})`,
      30_000,
    );
    term.type('hello there\r');
    await waitFor(() => term.screen().includes('agent: echo: hello there'), `the echo (${term.screen()})`);
    term.type('and again\r');
    await waitFor(() => term.screen().includes('agent: echo: and again'), `the 2nd echo (${term.screen()})`);
    term.type(CTRL_D);
    expect(await term.exit, term.screen()).toBe(0);
    expect(term.screen()).not.toContain(env['AMS_OWNER_PASSWORD']!);
    expect(term.screen()).not.toContain(env['AMS_AGENT_TOKEN']!);
  }, 60_000);

  it('Ctrl-C at the prompt ends with exit 0', async () => {
    const term = chatInTerminal(env);
    await waitFor(
      () => term.screen().includes('Ctrl-D ends'),
      `the chat to start (${term.screen()})`,
      30_000,
    );
    term.type(CTRL_C);
    expect(await term.exit, term.screen()).toBe(0);
    // Its own close on the way out is not a lost connection.
    expect(term.screen()).not.toContain('reconnecting');
  }, 60_000);
});
