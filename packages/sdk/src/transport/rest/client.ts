/**
 * The REST client core on undici: bearer authentication from a credentials
 * provider, `{ data }` unwrapping with optional zod validation, typed errors,
 * bounded jittered retries, client-side rate limits per agent, and binary
 * GETs. The Agent facade and the owner client build their operations on it.
 *
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import type { z } from 'zod';
import { describeRequest, type ResponseHeaders } from './attempt.js';
import { defaultDispatcher } from './default-dispatcher.js';
import type { RestClientEventName, RestClientEvents } from './events.js';
import { execute, type ExecuteContext } from './execute.js';
import { resolveRestOptions, type RestClientOptions } from './options.js';
import { contentTypeOf, dataOf } from './response.js';
import {
  limitersOf,
  prepareRequest,
  type HttpMethod,
  type RateLimitKey,
  type RequestCallOptions,
} from './prepare.js';
import { targetOf } from './paths.js';
import { streamRequest, type StreamRequestOptions, type StreamResponse } from './stream.js';
import { isServiceError } from '../../core/errors/guards.js';
import { bearerOf } from './execute.js';

export type { HttpMethod, RateLimitKey, RequestCallOptions } from './prepare.js';
export type { StreamResponse } from './stream.js';

/** A streamed exchange (see {@link RestClient.stream}). */
export interface RestStreamOptions extends Omit<StreamRequestOptions, 'limiter'> {
  /** Queue behind this client-side limiter. @defaultValue none */
  limiter?: RateLimitKey;
}

/** A JSON request. */
export interface RestRequestOptions<T = unknown> extends RequestCallOptions {
  /** @defaultValue `'GET'` */
  method?: HttpMethod;
  /** Path relative to the base URL, starting with `/`, segments already encoded (see `pathSegment`). */
  path: string;
  /** JSON body. */
  body?: unknown;
  /** Checks `data`; a mismatch is a ValidationError (never retried). */
  schema?: z.ZodType<T>;
}

/** A JSON answer with its status and headers. */
export interface RestResponse<T> {
  readonly data: T;
  readonly status: number;
  readonly headers: ResponseHeaders;
}

/** A binary answer (e.g. the ciphertext behind `GET /r2/<object_key>`). */
export interface BinaryResponse {
  readonly bytes: Uint8Array;
  /** The `content-type` header as sent, if any. */
  readonly contentType: string | undefined;
  /** `bytes.length`. */
  readonly size: number;
  readonly status: number;
}

/** The REST client. */
export interface RestClient {
  /** The base URL requests are relative to. */
  readonly baseUrl: string;
  /** Sends a JSON request and returns the answer's `data`. */
  request<T = unknown>(options: RestRequestOptions<T>): Promise<T>;
  /** Like {@link RestClient.request}, also returning status and headers. */
  requestWithResponse<T = unknown>(options: RestRequestOptions<T>): Promise<RestResponse<T>>;
  /** `GET path`. */
  get<T = unknown>(path: string, options?: RequestCallOptions & { schema?: z.ZodType<T> }): Promise<T>;
  /** `POST path` with a JSON body. */
  post<T = unknown>(
    path: string,
    body?: unknown,
    options?: RequestCallOptions & { schema?: z.ZodType<T> },
  ): Promise<T>;
  /** `PUT path` with a JSON body. */
  put<T = unknown>(
    path: string,
    body?: unknown,
    options?: RequestCallOptions & { schema?: z.ZodType<T> },
  ): Promise<T>;
  /** `DELETE path`. */
  delete<T = unknown>(path: string, options?: RequestCallOptions & { schema?: z.ZodType<T> }): Promise<T>;
  /** `GET path` returning raw bytes. */
  getBytes(path: string, options?: RequestCallOptions): Promise<BinaryResponse>;
  /**
   * One streamed exchange: the request body and/or the answer's body as byte
   * streams (file uploads and downloads). Not retried, except that a request
   * without a body is sent once more after a `TOKEN_EXPIRED` refresh.
   */
  stream(options: RestStreamOptions): Promise<StreamResponse>;
  /** Subscribes to an event. */
  on<E extends RestClientEventName>(event: E, listener: (...args: RestClientEvents[E]) => void): RestClient;
  /** Subscribes to one occurrence of an event. */
  once<E extends RestClientEventName>(event: E, listener: (...args: RestClientEvents[E]) => void): RestClient;
  /** Unsubscribes. */
  off<E extends RestClientEventName>(event: E, listener: (...args: RestClientEvents[E]) => void): RestClient;
}

function singleFlight(fn: (() => void | Promise<void>) | undefined): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    if (fn === undefined) return Promise.resolve();
    running ??= Promise.resolve()
      .then(fn)
      .finally(() => {
        running = undefined;
      });
    return running;
  };
}

/**
 * Creates a REST client.
 *
 * Requests reject with {@link ServiceError} / {@link RateLimitError} (the
 * service refused), {@link TransportError} (network failure, or a non-JSON
 * answer, `status` kept), {@link TimeoutError}, {@link ValidationError} (the
 * `schema` rejected `data`) or {@link ConfigurationError} (bad path, missing
 * credentials). A caller's abort reason is rethrown as-is.
 *
 * @throws {@link ConfigurationError} naming the first bad option.
 * @example
 * ```ts
 * const rest = createRestClient({ baseUrl: 'https://api.example.com', credentials: process.env.AGENT_TOKEN! });
 * const logs = await rest.get(`/agents/${pathSegment(agentId)}/delivery-logs`, { query: { limit: 20 } });
 * await rest.post(`/agents/${pathSegment(agentId)}/messages`, body, { limiter: 'messages' });
 * ```
 */
export function createRestClient(options: RestClientOptions): RestClient {
  const o = resolveRestOptions(options);
  const events = new EventEmitter<RestClientEvents>();
  const ctx: ExecuteContext = {
    options: o,
    dispatcher: o.dispatcher ?? defaultDispatcher(),
    events,
    refresh: singleFlight(o.onTokenExpired),
  };
  const limiters = limitersOf(o);

  const requestWithResponse = async <T>(r: RestRequestOptions<T>): Promise<RestResponse<T>> => {
    const req = prepareRequest(o, limiters, {
      method: r.method ?? 'GET',
      path: r.path,
      call: r,
      body: r.body,
      accept: 'application/json',
    });
    const raw = await execute(ctx, req);
    return {
      data: dataOf(raw, describeRequest(req.method, req.path), r.schema),
      status: raw.status,
      headers: raw.headers,
    };
  };

  const client: RestClient = {
    baseUrl: o.base.href,
    requestWithResponse,
    request: async (r) => (await requestWithResponse(r)).data,
    get: (path, call = {}) => client.request({ ...call, method: 'GET', path }),
    post: (path, body, call = {}) => client.request({ ...call, method: 'POST', path, body }),
    put: (path, body, call = {}) => client.request({ ...call, method: 'PUT', path, body }),
    delete: (path, call = {}) => client.request({ ...call, method: 'DELETE', path }),
    async getBytes(path, call = {}) {
      const raw = await execute(
        ctx,
        prepareRequest(o, limiters, { method: 'GET', path, call, body: undefined, accept: '*/*' }),
      );
      return {
        bytes: raw.bytes,
        contentType: contentTypeOf(raw),
        size: raw.bytes.length,
        status: raw.status,
      };
    },
    async stream(s) {
      const target = targetOf(o.base, s.path);
      const send = (): Promise<StreamResponse> =>
        streamRequest(
          {
            dispatcher: ctx.dispatcher,
            origin: target.origin,
            prefix: '',
            headers: o.headers,
            authorization: () => bearerOf(ctx),
            clock: o.clock,
            headersTimeoutMs: o.timeoutMs,
          },
          { ...s, path: target.path, limiter: s.limiter === undefined ? undefined : limiters?.[s.limiter] },
        );
      try {
        return await send();
      } catch (err) {
        if (s.body !== undefined || !isServiceError(err, 'TOKEN_EXPIRED') || o.onTokenExpired === undefined)
          throw err;
        await ctx.refresh();
        return send();
      }
    },
    on: (event, listener) => (events.on(event, listener), client),
    once: (event, listener) => (events.once(event, listener), client),
    off: (event, listener) => (events.off(event, listener), client),
  };
  return client;
}
