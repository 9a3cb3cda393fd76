/**
 * The one place the delivery engine touches the network: an HTTP POST of a
 * signed delivery to the receiver. Injectable, so the engine itself stays
 * transport-independent; the default uses undici with a keep-alive pool.
 *
 * @module
 */
import { Agent, request, type Dispatcher } from 'undici';

/** One POST to a receiver. */
export interface WebhookSendRequest {
  /** The registered webhook URL. */
  readonly url: string;
  /** Exactly the receiver-contract headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body; the signature covers exactly these bytes. */
  readonly body: Uint8Array;
  /** Real-time deadline for the answer's status line and headers, in ms. */
  readonly timeoutMs: number;
  /** Aborted by the engine (its clock's deadline, or shutdown). */
  readonly signal: AbortSignal;
}

/** What came back. A sender never throws. */
export type WebhookSendResult =
  /** The receiver answered with a status. `retryAfter` is its Retry-After header. */
  | { readonly kind: 'response'; readonly status: number; readonly retryAfter: string | undefined }
  /** No answer within `timeoutMs` of real time. */
  | { readonly kind: 'timeout' }
  /** Connection refused or reset, DNS or TLS failure, bad URL. */
  | { readonly kind: 'network' }
  /** `signal` was aborted. */
  | { readonly kind: 'aborted' };

/** Sends deliveries. */
export interface WebhookSender {
  /** POSTs one delivery. Never throws. */
  send(req: WebhookSendRequest): Promise<WebhookSendResult>;
  /** Releases pooled connections. */
  close(): Promise<void>;
}

/** Options of {@link createUndiciWebhookSender}. */
export interface UndiciWebhookSenderOptions {
  /**
   * The undici dispatcher to use; the sender then does not close it.
   * @defaultValue a keep-alive `Agent` (16 connections per origin) owned by the sender
   */
  readonly dispatcher?: Dispatcher;
  /**
   * Connect timeout of the default agent, in ms (the engine passes its `webhookTimeoutMs`).
   * @defaultValue `10000`
   */
  readonly connectTimeoutMs?: number;
}

/** Connections per receiver origin of the default agent. */
export const DEFAULT_SENDER_CONNECTIONS = 16;

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The default sender: undici `request` (which never follows redirects),
 * keep-alive, the answer's body read and discarded. The deadline is undici's
 * own headers/body/connect timeouts, so a delivery costs no extra timer or
 * AbortController.
 *
 * @example
 * ```ts
 * const engine = createDeliveryEngine({ clock, target, sender: createUndiciWebhookSender() });
 * ```
 */
export function createUndiciWebhookSender(options: UndiciWebhookSenderOptions = {}): WebhookSender {
  const owned = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ??
    new Agent({
      connections: DEFAULT_SENDER_CONNECTIONS,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    });
  return {
    async send(req) {
      try {
        const res = await request(req.url, {
          method: 'POST',
          headers: req.headers,
          body: req.body,
          signal: req.signal,
          dispatcher,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        });
        // Drain the answer so the connection can be reused; its content does not matter.
        await res.body.dump({ limit: 65_536 }).catch(() => undefined);
        return {
          kind: 'response',
          status: res.statusCode,
          retryAfter: headerValue(res.headers['retry-after']),
        };
      } catch (err) {
        if (req.signal.aborted) return { kind: 'aborted' };
        const code = (err as { code?: unknown }).code;
        return typeof code === 'string' && TIMEOUT_CODES.has(code)
          ? { kind: 'timeout' }
          : { kind: 'network' };
      }
    },
    async close() {
      if (owned) await dispatcher.close();
    },
  };
}
