/**
 * Sends one signed delivery and classifies the receiver's answer the way the
 * service's receiver contract does.
 *
 * @module
 */
import { LIMITS, TransportError, TimeoutError } from 'agent-messaging-sdk';

/** What the service does with a receiver's answer. */
export type DeliveryOutcome = 'delivered' | 'retry' | 'permanent_failure';

/** The receiver's answer. */
export interface PostResult {
  readonly status: number;
  readonly statusText: string;
  readonly outcome: DeliveryOutcome;
  /** One sentence: what the service would do. */
  readonly explanation: string;
  /** Response body as text, cut at 64 KiB. */
  readonly body: string;
}

const MAX_SHOWN_BYTES = 64 * 1024;

/**
 * The service's reaction to a status: 200/201/204 delivered; 429 and 5xx
 * retried; other 4xx permanent; anything else (1xx, other 2xx, 3xx) a
 * temporary failure, as the reference server treats it.
 */
export function classifyStatus(
  status: number,
  retryAfter: string | null,
): Pick<PostResult, 'outcome' | 'explanation'> {
  if (status === 200 || status === 201 || status === 204) {
    return { outcome: 'delivered', explanation: 'delivered (the service counts it as done)' };
  }
  if (status === 429) {
    const after =
      retryAfter === null ? 'without Retry-After: retried per schedule' : `retried after ${retryAfter} s`;
    return { outcome: 'retry', explanation: `rate limited, ${after}` };
  }
  if (status >= 400 && status < 500) {
    return {
      outcome: 'permanent_failure',
      explanation: 'permanent failure (the service does not retry a 4xx)',
    };
  }
  if (status >= 500) return { outcome: 'retry', explanation: 'temporary failure (retried per schedule)' };
  return { outcome: 'retry', explanation: 'not 200/201/204: a temporary failure (retried per schedule)' };
}

/**
 * POSTs `body` with `headers` to `url` (no redirects followed), waiting at
 * most the service's 10 s.
 *
 * @throws {@link TimeoutError} after 10 s; {@link TransportError} when the connection fails.
 */
export async function postDelivery(
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
): Promise<PostResult> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { ...headers },
      body: new Uint8Array(body), // a copy on a plain ArrayBuffer, as BodyInit wants
      redirect: 'manual',
      signal: AbortSignal.timeout(LIMITS.WEBHOOK_RESPONSE_TIMEOUT_MS),
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'TimeoutError') {
      throw new TimeoutError({
        message: `No answer from ${url.origin} within 10 s: the service would count a timeout and retry.`,
        timeoutMs: LIMITS.WEBHOOK_RESPONSE_TIMEOUT_MS,
      });
    }
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    throw new TransportError({
      code: 'TRANSPORT_NETWORK',
      message: `Cannot reach ${url.origin}${typeof code === 'string' ? ` (${code})` : ''}: is the receiver running?`,
      cause: err,
    });
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  const shown = new TextDecoder().decode(bytes.subarray(0, MAX_SHOWN_BYTES));
  const cut = bytes.length > MAX_SHOWN_BYTES ? `\n[… ${bytes.length - MAX_SHOWN_BYTES} more bytes]` : '';
  return {
    status: res.status,
    statusText: res.statusText,
    ...classifyStatus(res.status, res.headers.get('retry-after')),
    body: shown + cut,
  };
}
