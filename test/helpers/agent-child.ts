/**
 * The parent's side of an agent running in its own process
 * (`test/helpers/sigkill-agent.ts`, started with `node --import tsx`):
 * start it, arm a kill, see it die of SIGKILL, start it again with the same
 * environment (same key directory, same de-duplication store), and read what
 * it handled from its record file — written synchronously by the handler, so
 * exact whatever the kill.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { KillPoint, ParentMessage } from './sigkill-agent.js';

const SCRIPT = fileURLToPath(new URL('./sigkill-agent.ts', import.meta.url));

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
  /** `copies` of the agent (`shared`: several processes side by side). @defaultValue `'exclusive'` */
  readonly copies?: 'exclusive' | 'shared';
  /** Keep a loaded process on standby for fast restarts. @defaultValue `true` */
  readonly standby?: boolean;
}

/** How one life of the process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** One process: loaded, then told to connect. */
interface Life {
  readonly proc: ChildProcess;
  readonly exited: Promise<ProcessExit>;
  readonly connected: Promise<void>;
}

/**
 * The agent process, across its restarts. One more process is kept loaded
 * on standby (it connects only when told), so a restart takes milliseconds
 * rather than the seconds tsx needs to load the SDK.
 */
export class AgentChild {
  /** Processes told to connect so far. */
  starts = 0;
  /** `connected` notifications over all lives. */
  connects = 0;
  /** How each finished life ended, oldest first (the standby excluded). */
  readonly exits: ProcessExit[] = [];
  #life: Life | undefined;
  #standby: Life | undefined;
  readonly #timeoutMs: number;

  constructor(readonly options: AgentChildOptions) {
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  /**
   * Starts a process (the standby when there is one) and resolves once its
   * agent connected; it connects no earlier than `notBefore` (epoch ms).
   */
  async start(notBefore = 0): Promise<void> {
    const life = this.#standby ?? this.#spawn();
    this.#standby = this.options.standby === false ? undefined : this.#spawn();
    this.#life = life;
    this.starts++;
    void life.exited.then((exit) => this.exits.push(exit));
    this.#send(life, { type: 'go', notBefore });
    await this.#within(life.connected, 'the agent process to connect');
  }

  /** Loads a process on standby now (it connects on {@link AgentChild.start}), so that start takes milliseconds. */
  preload(): void {
    this.#standby ??= this.#spawn();
  }

  /** Arms the current process's kill at `point`. */
  arm(kill: KillPoint): void {
    if (this.#life !== undefined) this.#send(this.#life, { type: 'arm', kill });
  }

  /** Resolves with how the current process ended. */
  exited(): Promise<ProcessExit> {
    if (this.#life === undefined) throw new Error('no agent process was started');
    return this.#within(this.#life.exited, 'the agent process to exit');
  }

  /**
   * Arms the kill at `point`, waits for the SIGKILL, and starts the process
   * again, connecting no earlier than `restartDelayMs` after the death.
   */
  async killAndRestart(point: KillPoint, restartDelayMs = 0): Promise<ProcessExit> {
    this.arm(point);
    const exit = await this.exited();
    await this.start(Date.now() + restartDelayMs);
    return exit;
  }

  /** Stops the current process and the standby (SIGTERM: the agent closes). */
  async stop(): Promise<void> {
    await Promise.all(
      [this.#life, this.#standby].map((life) => (life === undefined ? undefined : stopLife(life))),
    );
  }

  #spawn(): Life {
    const o = this.options;
    const proc = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
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
        AMS_TEST_COPIES: o.copies ?? 'exclusive',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise<ProcessExit>((resolve) =>
      proc.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const connected = new Promise<void>((resolve, reject) => {
      proc.on('message', (m: { type?: string }) => {
        if (m.type !== 'connected') return;
        this.connects++;
        resolve();
      });
      void exited.then((e) => reject(new Error(`agent process exited before connecting (${describe(e)})`)));
    });
    connected.catch(() => undefined); // a standby stopped unused never connects
    return { proc, exited, connected };
  }

  #send(life: Life, message: ParentMessage): void {
    if (life.proc.connected) life.proc.send(message);
  }

  #within<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), this.#timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}

async function stopLife(life: Life): Promise<void> {
  const { proc } = life;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 3_000);
  await life.exited;
  clearTimeout(timer);
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
