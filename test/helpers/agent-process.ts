/**
 * Runs a small bot script as a child process (through tsx) against a
 * reference server of the test, and watches its output and exit: for the
 * behaviours that only a real process shows (signals, exit codes, stderr).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The bot of `test/fixtures/agent-bots/bot.ts`. */
export const BOT_SCRIPT = fileURLToPath(new URL('../fixtures/agent-bots/bot.ts', import.meta.url));

/** How a child process ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** `Date.now()` when it ended. */
  readonly at: number;
}

/** A running bot and what it wrote. */
export interface BotProcess {
  readonly child: ChildProcess;
  /** stdout lines so far. */
  readonly lines: string[];
  /** stderr so far. */
  stderr(): string;
  /** Resolves once a stdout line equals `line` (rejects after `timeoutMs` or when the child ends first). */
  waitForLine(line: string, timeoutMs?: number): Promise<void>;
  readonly exited: Promise<ChildExit>;
}

/** Starts `script` with `env` added to this process's environment. */
export function startBot(env: Readonly<Record<string, string>>, script = BOT_SCRIPT): BotProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let err = '';
  let partial = '';
  const waiters: (() => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (err += chunk));
  const exited = new Promise<ChildExit>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal, at: Date.now() });
      for (const w of waiters.splice(0)) w();
    }),
  );
  const waitForLine = async (line: string, timeoutMs = 15_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!lines.includes(line)) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the bot ended before "${line}": ${err}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for "${line}": ${err}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  };
  return { child, lines, stderr: () => err, waitForLine, exited };
}
