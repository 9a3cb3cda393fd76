/**
 * The reference server's transport-independent request and response shapes.
 * The node:http binding turns sockets into these; the core never sees a socket.
 *
 * @module
 */

/** One HTTP request as the core sees it. Header names are lower case. */
export interface ServerRequest {
  /** Upper-case method, e.g. `POST`. */
  readonly method: string;
  /** Path without the query string, e.g. `/auth/login`. */
  readonly path: string;
  /** Parsed query string. */
  readonly query: URLSearchParams;
  /** Request headers, names in lower case (repeated headers joined with `, `). */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body; empty when the request had none. */
  readonly body: Uint8Array;
  /** True when the binding stopped reading because the body exceeded the cap. */
  readonly bodyTooLarge?: boolean;
  /** The unread body, for routes with `streamBody` (then `body` is empty). */
  readonly stream?: RequestBodyStream;
}

/** A request body read piece by piece (routes with `streamBody`, e.g. file uploads). */
export interface RequestBodyStream {
  /** The next piece; `undefined` at the end, or when the client went away (then `complete` is false). */
  read(): Promise<Uint8Array | undefined>;
  /** True once the whole body arrived. */
  readonly complete: boolean;
}

/**
 * One HTTP response from the core. `body` is serialised as JSON unless
 * undefined or a Uint8Array (sent raw); `stream` (bytes, e.g. a stored file)
 * is sent as it is read, instead of `body`.
 */
export interface ServerResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: unknown;
  readonly stream?: AsyncIterable<Uint8Array>;
}

/** The principal of a request that carried a valid user access token. */
export interface UserPrincipal {
  readonly kind: 'user';
  readonly userId: string;
  readonly deviceId: string;
  /** Session id (the device session the token was derived from). */
  readonly sessionId: string;
  /** Expiry of the access token, ms since the epoch. */
  readonly expiresAtMs: number;
}

/** The principal of a request that carried a valid agent token (`Bearer hsk_…`). */
export interface AgentPrincipal {
  readonly kind: 'agent';
  readonly agentId: string;
  /** Id of the token record used (current, or one in its 7-day grace). */
  readonly tokenId: string;
}

/** Either kind of authenticated caller. */
export type AnyPrincipal = UserPrincipal | AgentPrincipal;
