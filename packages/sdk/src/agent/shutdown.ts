/**
 * Built-in graceful shutdown: SIGINT/SIGTERM close every registered agent
 * (handlers finish, acks are sent, the WebSocket closes), then the process
 * exits; a second signal exits at once (128 + the signal's number, 130 for
 * Ctrl-C). One listener per signal serves every agent of the process, and it
 * is removed when the last agent unregisters (closed or fatal), so Ctrl-C
 * behaves as usual again.
 *
 * @module
 */
import type { Logger } from '../core/logger.js';
import type { CloseResult } from './events.js';

/** The parts of `process` used here (a fake in unit tests). */
export interface ShutdownHost {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  exit(code: number): void;
  exitCode?: number | string | null | undefined;
}

/** One agent under the signal handling. */
export interface ShutdownRegistration {
  /** Closes the agent (bounded by its own timeout). */
  readonly close: () => Promise<CloseResult>;
  /** Exit the process once closed. */
  readonly exit: boolean;
  /** How long closing may take, ms (for the log line). */
  readonly timeoutMs: number;
  readonly signals: readonly NodeJS.Signals[];
  readonly logger: Logger;
}

const SIGNAL_NUMBERS: Readonly<Partial<Record<NodeJS.Signals, number>>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGTERM: 15,
};

/** The exit code of a process ended by `signal` (130 for SIGINT, 143 for SIGTERM). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (SIGNAL_NUMBERS[signal] ?? 0);
}

interface HostState {
  readonly registrations: Set<ShutdownRegistration>;
  readonly listeners: Map<NodeJS.Signals, (signal: NodeJS.Signals) => void>;
  stopping: boolean;
}

const states = new WeakMap<ShutdownHost, HostState>();

/** The running process, when there is one with signals (Node, Bun, Deno's node compat). */
export function defaultShutdownHost(): ShutdownHost | undefined {
  const p = globalThis.process as ShutdownHost | undefined;
  return typeof p?.on === 'function' && typeof p.off === 'function' && typeof p.exit === 'function'
    ? p
    : undefined;
}

function stateOf(host: ShutdownHost): HostState {
  let s = states.get(host);
  if (s === undefined) {
    s = { registrations: new Set(), listeners: new Map(), stopping: false };
    states.set(host, s);
  }
  return s;
}

function uninstall(host: ShutdownHost, s: HostState): void {
  for (const [signal, listener] of s.listeners) host.off(signal, listener);
  s.listeners.clear();
}

function exitCodeAfter(host: ShutdownHost, results: readonly CloseResult[]): number {
  const set = Number(host.exitCode ?? 0);
  if (Number.isInteger(set) && set !== 0) return set;
  return results.every((r) => r.drained) ? 0 : 1;
}

async function onSignal(host: ShutdownHost, s: HostState, signal: NodeJS.Signals): Promise<void> {
  const all = [...s.registrations];
  const logger = all[0]?.logger;
  if (s.stopping) {
    logger?.warn(`${signal} again: exiting now; unfinished events will be delivered again`);
    host.exit(signalExitCode(signal));
    return;
  }
  s.stopping = true;
  const timeoutMs = Math.max(0, ...all.map((r) => r.timeoutMs));
  logger?.warn(
    `${signal}: closing the agent (running handlers get up to ${timeoutMs} ms; ${signal} again exits now)`,
  );
  const results = await Promise.all(
    all.map((r) => r.close().catch((): CloseResult => ({ drained: false, abandoned: 0 }))),
  );
  if (all.some((r) => r.exit)) {
    host.exit(exitCodeAfter(host, results));
    return;
  }
  s.stopping = false;
  if (s.registrations.size === 0) uninstall(host, s);
}

/**
 * Puts an agent under the signal handling of `host`; returns the function
 * that takes it out again (idempotent).
 */
export function registerShutdown(host: ShutdownHost, registration: ShutdownRegistration): () => void {
  const s = stateOf(host);
  s.registrations.add(registration);
  for (const signal of registration.signals) {
    if (s.listeners.has(signal)) continue;
    const listener = (sig: NodeJS.Signals): void => void onSignal(host, s, sig);
    s.listeners.set(signal, listener);
    host.on(signal, listener);
  }
  return () => {
    s.registrations.delete(registration);
    // While stopping, the listeners stay: a second signal must still force the exit.
    if (s.registrations.size === 0 && !s.stopping) uninstall(host, s);
  };
}
