/**
 * A real webhook receiver on 127.0.0.1:0 whose answers are scripted: a status
 * (200, 429 + Retry-After, 4xx, 5xx …), a hang (no answer until closed), or a
 * dropped connection. Every request is recorded with its raw body, headers
 * and arrival time.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver does with one request. */
export type ReceiverAction =
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string }
  | { readonly hang: true }
  | { readonly destroy: true };

/** One recorded request. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Raw header pairs as received (names in their original case, in order). */
  readonly rawHeaders: readonly string[];
  readonly body: Uint8Array;
  /** Real time of arrival (`Date.now()`). */
  readonly receivedAtMs: number;
  /** What the receiver did. */
  readonly action: ReceiverAction;
}

/** A running scripted receiver. */
export interface ScriptedReceiver {
  /** `http://127.0.0.1:<port>/hook`. */
  readonly url: string;
  /** Every request so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Queues actions, used one per request in order; then the default applies. */
  script(...actions: readonly ReceiverAction[]): void;
  /** The action once the script is used up. @defaultValue `{ status: 200 }` */
  setDefault(action: ReceiverAction): void;
  /** Resolves when at least `n` requests have arrived (rejects after `timeoutMs` of real time). */
  waitForRequests(n: number, timeoutMs?: number): Promise<readonly RecordedRequest[]>;
  /** Drops hanging requests and stops listening. */
  close(): Promise<void>;
}

/** Shorthands for common actions. */
export const answer = {
  status: (status: number, headers?: Record<string, string>): ReceiverAction =>
    headers === undefined ? { status } : { status, headers },
  hang: (): ReceiverAction => ({ hang: true }),
  destroy: (): ReceiverAction => ({ destroy: true }),
} as const;

function readAll(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    req.on('error', () => resolve(new Uint8Array()));
  });
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function perform(res: ServerResponse, action: ReceiverAction): void {
  if ('hang' in action) return;
  if ('destroy' in action) {
    res.socket?.destroy();
    return;
  }
  res.writeHead(action.status, { 'content-type': 'text/plain', ...action.headers });
  res.end(action.body ?? '');
}

/**
 * Starts a receiver on 127.0.0.1, port 0.
 *
 * @example
 * ```ts
 * const receiver = await startScriptedReceiver();
 * receiver.script(answer.status(500), answer.status(429, { 'retry-after': '5' }));
 * ```
 */
export async function startScriptedReceiver(
  defaultAction: ReceiverAction = { status: 200 },
): Promise<ScriptedReceiver> {
  const requests: RecordedRequest[] = [];
  const queue: ReceiverAction[] = [];
  const waiters = new Set<() => void>();
  let fallback = defaultAction;
  const server = createServer((req, res) => {
    void readAll(req).then((body) => {
      const action = queue.shift() ?? fallback;
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: headersOf(req),
        rawHeaders: req.rawHeaders,
        body,
        receivedAtMs: Date.now(),
        action,
      });
      for (const w of [...waiters]) w();
      perform(res, action);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    script: (...actions) => void queue.push(...actions),
    setDefault: (action) => void (fallback = action),
    waitForRequests(n, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (requests.length < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(requests);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: ${requests.length} of ${n} requests arrived`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
