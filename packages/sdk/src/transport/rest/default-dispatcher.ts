/**
 * The dispatcher used when none is injected: one keep-alive undici `Agent`
 * shared by every REST client of the process, created on first use.
 *
 * undici is imported on the first request, not when the SDK is imported:
 * loading it is about half of the main entry's import time, and a process that
 * only verifies webhooks or seals envelopes never needs it (docs/performance.md).
 *
 * @module
 */
import type { Dispatcher } from 'undici';
import { usableDispatcher } from './fetch-dispatcher.js';

let shared: Dispatcher | undefined;
let loading: Promise<Dispatcher> | undefined;
let lazy: Dispatcher | undefined;

/** Keep-alive settings of the shared agent. */
export const DEFAULT_AGENT_OPTIONS = {
  keepAliveTimeout: 10_000,
  keepAliveMaxTimeout: 60_000,
  connections: 16,
} as const;

/** The shared agent, importing undici the first time (one import however many callers wait). */
function load(): Promise<Dispatcher> {
  loading ??= import('undici').then(({ Agent }) => {
    shared ??= usableDispatcher(new Agent(DEFAULT_AGENT_OPTIONS));
    return shared;
  });
  return loading;
}

/**
 * The process-wide keep-alive agent (idle sockets do not keep the process alive);
 * on Bun, whose `undici` module has no working `Agent`, a fetch-backed dispatcher.
 * Returned at once; only its `request` method (all the REST client calls) is
 * implemented until undici is loaded, which the first `request` does.
 */
export function defaultDispatcher(): Dispatcher {
  if (shared !== undefined) return shared;
  lazy ??= {
    request: ((options: Dispatcher.RequestOptions) =>
      shared !== undefined
        ? shared.request(options)
        : load().then((d) => d.request(options))) as Dispatcher['request'],
  } as Dispatcher;
  return lazy;
}
