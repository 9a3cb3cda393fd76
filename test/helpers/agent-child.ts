/**
 * The parent's side of an agent running in its own process
 * (`test/helpers/agent-process.ts`, started with `node --import tsx`):
 * start it, arm a kill, see it die of SIGKILL, start it again with the same
 * environment (same key directory, same de-duplication store), and read what
 * it handled from its record file — written synchronously by the handler, so
 * exact whatever the kill.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ArmMessage, KillPoint } from './agent-process.js';

const SCRIPT = fileURLToPath(new URL('./agent-process.ts', import.meta.url));

/** Options of {@link AgentChild}. */
export interface AgentChildOptions {
  readonly baseUrl: string;
  readonly agentId: string;
  readonly token: string;
  /** Parent of the key directory (`<keyDir>/<agentId>`), as in the examples. */
  readonly keyDir: string;
  /** The record file (one line per handled message or skipped duplicate). */
  readonly recordFile: string;
  /** The Redis de-duplication store; without it the process uses the in-memory store. */
  readonly redis?: { readonly url: string; readonly prefix: string };
  /** `claimLeaseMs` of the agent. */
  readonly claimLeaseMs: number;
  /** Real-time limit of waits (start, connect, death), ms. @defaultValue `15000` */
  readonly timeoutMs?: number;
}

/** How one life of the process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The agent process, across its restarts. */
export class AgentChild {
  /** Processes started so far. */
  starts = 0;
  /** `connected` notifications over all lives. */
  connects = 0;
  /** How each finished life ended, oldest first. */
  readonly exits: ProcessExit[] = [];
  #child: ChildProcess | undefined;
  #exited: Promise<ProcessExit> = Promise.resolve({ code: null, signal: null });
  readonly #timeoutMs: number;

  constructor(readonly options: AgentChildOptions) {
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** Starts a process and resolves once its agent connected. */
  async start(): Promise<void> {
    const o = this.options;
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
      env: {
        ...process.env,
        AMS_BASE_URL: o.baseUrl,
        AMS_AGENT_ID: o.agentId,
        AMS_AGENT_TOKEN: o.token,
        AMS_KEY_DIR: o.keyDir,
        AMS_TEST_HANDLED_FILE: o.recordFile,
        AMS_TEST_CLAIM_LEASE_MS: String(o.claimLeaseMs),
        AMS_TEST_REDIS_URL: o.redis?.url ?? '',
        AMS_TEST_PREFIX: o.redis?.prefix ?? '',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#child = child;
    this.starts++;
    this.#exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        const exit = { code, signal };
        this.exits.push(exit);
        resolve(exit);
      }),
    );
    const connected = new Promise<void>((resolve, reject) => {
      child.on('message', (m: { type?: string }) => {
        if (m.type !== 'connected') return;
        this.connects++;
        resolve();
      });
      void this.#exited.then((e) =>
        reject(new Error(`agent process exited before connecting (${describe(e)})`)),
      );
    });
    await this.#within(connected, 'the agent process to connect');
  }

  /** Arms the process's kill at `point`. */
  arm(kill: KillPoint): void {
    const message: ArmMessage = { type: 'arm', kill };
    this.#child?.send(message);
  }

  /** Resolves with how the current process ended. */
  exited(): Promise<ProcessExit> {
    return this.#within(this.#exited, 'the agent process to exit');
  }

  /** Arms the kill at `point`, waits for the SIGKILL, and starts the process again. */
  async killAndRestart(point: KillPoint): Promise<ProcessExit> {
    this.arm(point);
    const exit = await this.exited();
    await this.start();
    return exit;
  }

  /** Stops the current process (SIGTERM: the agent closes), if it runs. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await this.#exited;
    clearTimeout(timer);
  }

  #within<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), this.#timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}

function describe(e: ProcessExit): string {
  return e.signal !== null ? `signal ${e.signal}` : `code ${e.code}`;
}

/**
 * Reads a record file as it grows: complete lines only (a line the process
 * is writing at the moment is taken with the next read).
 */
export class RecordReader {
  #offset = 0;
  #partial = '';

  constructor(readonly file: string) {}

  /** The complete lines appended since the last call. */
  read(): string[] {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return [];
    }
    try {
      const buffer = Buffer.alloc(64 * 1024);
      let text = '';
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, this.#offset);
        if (n === 0) break;
        this.#offset += n;
        text += buffer.toString('utf8', 0, n);
      }
      const lines = (this.#partial + text).split('\n');
      this.#partial = lines.pop() ?? '';
      return lines;
    } finally {
      closeSync(fd);
    }
  }
}
