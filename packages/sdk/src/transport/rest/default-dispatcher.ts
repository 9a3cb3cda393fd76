/**
 * The dispatcher used when none is injected: one keep-alive undici `Agent`
 * shared by every REST client of the process, created on first use.
 *
 * @module
 */
import { Agent, type Dispatcher } from 'undici';
import { usableDispatcher } from './fetch-dispatcher.js';

let shared: Dispatcher | undefined;

/** Keep-alive settings of the shared agent. */
export const DEFAULT_AGENT_OPTIONS = {
  keepAliveTimeout: 10_000,
  keepAliveMaxTimeout: 60_000,
  connections: 16,
} as const;

/**
 * The process-wide keep-alive agent (idle sockets do not keep the process alive);
 * on Bun, whose `undici` module has no working `Agent`, a fetch-backed dispatcher.
 */
export function defaultDispatcher(): Dispatcher {
  shared ??= usableDispatcher(new Agent(DEFAULT_AGENT_OPTIONS));
  return shared;
}
