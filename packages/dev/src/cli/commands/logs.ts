/**
 * `ams logs`: prints an agent's webhook delivery log
 * (`GET /agents/:agent_id/delivery-logs`), optionally following it.
 *
 * @module
 */
import { isServiceError } from 'agent-messaging-sdk';
import {
  DeliveryLogListSchema,
  pathSegment,
  type DeliveryLogEntry,
  type RestClient,
} from 'agent-messaging-sdk/protocol';
import { EXIT, intOf, required, stringOf } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import { describeError } from '../report.js';
import { envValue, type CliIo } from '../io.js';
import { withProgress } from '../progress.js';
import { baseUrlOf, cliRestClient, DEFAULT_BASE_URL } from '../rest.js';

/** Interval between polls of `--follow`, ms. */
export const FOLLOW_INTERVAL_MS = 2000;
/** How many entries `--follow` remembers to print each one once. */
const SEEN_MAX = 10_000;

/** Help text of `ams logs`. */
export const LOGS_HELP = `Usage: ams logs [--agent-id ID] [--token T] [--base-url URL] [--limit N] [--follow] [--json]

Prints the agent's webhook delivery log (kept 30 days by the service), oldest
first: completion time, final status, event type, attempts, latency or error
class, delivery id. With --follow, polls every ${FOLLOW_INTERVAL_MS / 1000} s and prints each new entry
(or new final status of a delivery) once, until Ctrl-C.

Options:
  --agent-id ID    Agent id (default $AMS_AGENT_ID)
  --token T        Agent token hsk_… (default $AMS_AGENT_TOKEN; prefer the
                   variable: arguments are visible in ps)
  --base-url URL   Service (default $AMS_BASE_URL, else ${DEFAULT_BASE_URL})
  --limit N        Entries per request (1 to 500; default: the service's)
  --follow         Keep polling
  --json           One JSON object per line (the entry as the service sent it)
  -h, --help       Show this help
`;

/** One human-readable line for an entry. */
export function formatLogEntry(e: DeliveryLogEntry): string {
  const detail =
    e.final_status === 'delivered'
      ? `latency ${e.latency_ms} ms`
      : e.error_class === undefined
        ? ''
        : `error ${e.error_class}`;
  const attempts = `${e.attempt_count} attempt${e.attempt_count === 1 ? '' : 's'}`;
  return [e.completed_at, e.final_status.padEnd(11), e.event_type, attempts, detail, e.delivery_id]
    .filter((s) => s !== '')
    .join('  ');
}

/** Keeps the keys of printed entries (delivery id + final status), bounded. */
export class SeenEntries {
  readonly #keys = new Set<string>();

  /** Entries of `list` (newest first, as served) not seen before, oldest first; marks them seen. */
  fresh(list: readonly DeliveryLogEntry[]): DeliveryLogEntry[] {
    const out: DeliveryLogEntry[] = [];
    for (const e of [...list].reverse()) {
      const key = `${e.delivery_id} ${e.final_status}`;
      if (this.#keys.has(key)) continue;
      this.#keys.add(key);
      out.push(e);
    }
    while (this.#keys.size > SEEN_MAX) this.#keys.delete(this.#keys.values().next().value as string);
    return out;
  }
}

/** Seams of `--follow`, for tests. */
export interface LogsDeps {
  /** Stops following when aborted. @defaultValue aborted by the first SIGINT or SIGTERM */
  readonly stop?: AbortSignal;
  /** Interval between polls, ms. @defaultValue {@link FOLLOW_INTERVAL_MS} */
  readonly intervalMs?: number;
}

/** Waits `ms`; resolves `false` at once, or as soon as, `stop` is aborted. */
export function waitUnlessStopped(ms: number, stop: AbortSignal): Promise<boolean> {
  if (stop.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      stop.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    stop.addEventListener('abort', onAbort, { once: true });
  });
}

/** An AbortSignal aborted by the first SIGINT or SIGTERM; `release` removes the listeners. */
function signalStop(): { signal: AbortSignal; release: () => void } {
  const ac = new AbortController();
  const stop = (): void => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: ac.signal,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

function fetchLogs(rest: RestClient, agentId: string, limit: number | undefined) {
  return rest.get(`/agents/${pathSegment(agentId)}/delivery-logs`, {
    ...(limit === undefined ? {} : { query: { limit } }),
    schema: DeliveryLogListSchema,
  });
}

function print(io: CliIo, entries: readonly DeliveryLogEntry[], json: boolean): void {
  for (const e of entries) io.stdout.write(json ? `${JSON.stringify(e)}\n` : `${formatLogEntry(e)}\n`);
}

/** Stops following only when polling again cannot help (credentials, permission, governance). */
function isFatal(err: unknown): boolean {
  return (
    isServiceError(err) &&
    (err.status === 401 || err.status === 403 || err.status === 404 || err.status === 400)
  );
}

async function follow(io: CliIo, poll: () => Promise<DeliveryLogEntry[]>, json: boolean, deps: LogsDeps) {
  const own = deps.stop === undefined ? signalStop() : undefined;
  const stop = deps.stop ?? own!.signal;
  const interval = deps.intervalMs ?? FOLLOW_INTERVAL_MS;
  const seen = new SeenEntries();
  try {
    print(io, seen.fresh(await withProgress(io, 'ams logs', 'fetching the delivery log', poll())), json);
    while (await waitUnlessStopped(interval, stop)) {
      try {
        print(io, seen.fresh(await poll()), json);
      } catch (err) {
        if (isFatal(err)) throw err;
        io.stderr.write(`ams logs: ${describeError(err)}; retrying in ${interval / 1000} s\n`);
      }
    }
    return EXIT.ok;
  } finally {
    own?.release();
  }
}

function logsCommand(deps: LogsDeps): CommandSpec {
  return {
    name: 'logs',
    help: LOGS_HELP,
    options: {
      'agent-id': { type: 'string' },
      token: { type: 'string' },
      'base-url': { type: 'string' },
      limit: { type: 'string' },
      follow: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    async run(values, io) {
      const agentId = required(
        stringOf(values, 'agent-id') ?? envValue(io, 'AMS_AGENT_ID'),
        '--agent-id (or AMS_AGENT_ID)',
      );
      const token = required(
        stringOf(values, 'token') ?? envValue(io, 'AMS_AGENT_TOKEN'),
        '--token (or AMS_AGENT_TOKEN)',
      );
      const limit = intOf(stringOf(values, 'limit'), '--limit', 1, 500);
      const rest = cliRestClient(baseUrlOf(io, stringOf(values, 'base-url')), token);
      const json = values['json'] === true;
      const poll = async (): Promise<DeliveryLogEntry[]> => fetchLogs(rest, agentId, limit);
      if (values['follow'] === true) return follow(io, poll, json, deps);
      print(
        io,
        new SeenEntries().fresh(await withProgress(io, 'ams logs', 'fetching the delivery log', poll())),
        json,
      );
      return EXIT.ok;
    },
  };
}

/** Runs `ams logs`; `deps` replaces the stop signal and interval of `--follow` (tests). */
export function runLogs(argv: readonly string[], io: CliIo, deps: LogsDeps = {}): Promise<number> {
  return runCommand(logsCommand(deps), argv, io);
}
