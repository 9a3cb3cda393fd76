/**
 * A small route table: method + path pattern (`/users/me/devices/:device_id`)
 * → handler, with the body schema and the kind of authentication each route
 * needs. Endpoint groups contribute arrays of routes; part 2 adds its own.
 *
 * @module
 */
import type { z } from 'zod';
import type { ServerContext } from '../context.js';
import type { ResolvedServerOptions } from '../options.js';
import type { AgentPrincipal, AnyPrincipal, ServerRequest, ServerResponse, UserPrincipal } from './types.js';

/**
 * How a route authenticates its caller: nobody, a user access token, an agent
 * token (`Bearer hsk_…`), or either (`hsk_` tokens go the agent way).
 */
export type AuthKind = 'none' | 'user' | 'agent' | 'user_or_agent';

/** The principal each {@link AuthKind} yields. */
export interface PrincipalByAuth {
  none: undefined;
  user: UserPrincipal;
  agent: AgentPrincipal;
  user_or_agent: AnyPrincipal;
}

/** A route's body cap in bytes, fixed or read from the server's options. */
export type BodyLimit = number | ((options: ResolvedServerOptions) => number);

/** The body cap of `route` under `options`. */
export function bodyLimitOf(route: Route, options: ResolvedServerOptions): number {
  const limit = route.maxBodyBytes;
  if (limit === undefined) return options.maxBodyBytes;
  return typeof limit === 'number' ? limit : limit(options);
}

/** What a {@link RouteDefinition.guard} sees: everything but the body. */
export interface GuardContext<A extends AuthKind> {
  readonly req: ServerRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly principal: PrincipalByAuth[A];
  readonly ctx: ServerContext;
}

/** Options of agent-token routes. */
export interface AgentAuthOptions {
  /**
   * The agent the request is about, so a token seen for the first time is
   * checked against that agent's bcrypt hashes only.
   * @defaultValue the `:id` / `:agent_id` path parameter of paths under `/agents/`; none otherwise
   */
  readonly agentHint?: (params: Readonly<Record<string, string>>, ctx: ServerContext) => string | undefined;
  /**
   * Let a suspended (L2) or banned (L3) agent through (e.g. to read its governance).
   * @defaultValue false
   */
  readonly allowGoverned?: boolean;
  /**
   * Refuse (FORBIDDEN) unless the `:id` / `:agent_id` path parameter is the token's agent.
   * @defaultValue true when the path starts with `/agents/:id` or `/agents/:agent_id`
   */
  readonly selfOnly?: boolean;
}

/** What a handler receives. */
export interface RouteContext<B, A extends AuthKind> {
  readonly req: ServerRequest;
  /** Decoded path parameters. */
  readonly params: Readonly<Record<string, string>>;
  /** The validated body (`undefined` for routes without a body schema). */
  readonly body: B;
  /** The authenticated caller. */
  readonly principal: PrincipalByAuth[A];
  /** Server state and services. */
  readonly ctx: ServerContext;
}

/** A route as stored in the table (types erased). */
export interface Route {
  readonly method: string;
  readonly path: string;
  readonly auth: AuthKind;
  /** Body schema; `undefined` means the route takes no body (empty or `{}` only). */
  readonly body: z.ZodType | undefined;
  /** When true the body is not read at all (placeholders that refuse every request). */
  readonly ignoreBody: boolean;
  /** When true the binding hands the unread body to the handler as `req.stream`. */
  readonly streamBody: boolean;
  /** Agent-token options (auth `agent` / `user_or_agent`). */
  readonly agent: AgentAuthOptions;
  /** Body cap of this route; undefined means the server's `maxBodyBytes`. */
  readonly maxBodyBytes: BodyLimit | undefined;
  /** Runs after authentication, before the body is read (path checks, rate limits). */
  readonly guard: ((gc: GuardContext<AuthKind>) => Promise<void> | void) | undefined;
  readonly handle: (rc: RouteContext<unknown, AuthKind>) => Promise<ServerResponse> | ServerResponse;
}

/** A route definition with its types intact. */
export interface RouteDefinition<A extends AuthKind, S extends z.ZodType | undefined> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly auth: A;
  readonly body?: S;
  /** Skip body decoding entirely. @defaultValue false */
  readonly ignoreBody?: boolean;
  /** Hand the unread body to the handler as `req.stream` (implies `ignoreBody`). @defaultValue false */
  readonly streamBody?: boolean;
  /** Agent-token options. */
  readonly agent?: AgentAuthOptions;
  /** Body cap of this route. @defaultValue the server's `maxBodyBytes` */
  readonly maxBodyBytes?: BodyLimit;
  /** Runs after authentication, before the body is read: counts every authenticated request (rate limits). */
  readonly guard?: (gc: GuardContext<A>) => Promise<void> | void;
  readonly handler: (
    rc: RouteContext<S extends z.ZodType ? z.output<S> : undefined, A>,
  ) => Promise<ServerResponse> | ServerResponse;
}

/** Declares a route; the handler's body and principal types follow `body` and `auth`. */
export function defineRoute<A extends AuthKind, S extends z.ZodType | undefined = undefined>(
  def: RouteDefinition<A, S>,
): Route {
  return {
    method: def.method,
    path: def.path,
    auth: def.auth,
    body: def.body,
    ignoreBody: (def.ignoreBody ?? false) || (def.streamBody ?? false),
    streamBody: def.streamBody ?? false,
    agent: def.agent ?? {},
    maxBodyBytes: def.maxBodyBytes,
    guard: def.guard as Route['guard'],
    handle: def.handler as Route['handle'],
  };
}

interface CompiledRoute {
  readonly route: Route;
  readonly segments: readonly string[];
}

/** The outcome of {@link Router.match}. */
export type RouteMatch =
  | { readonly kind: 'found'; readonly route: Route; readonly params: Record<string, string> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not_found' };

function matchSegments(
  pattern: readonly string[],
  actual: readonly string[],
): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const a = actual[i]!;
    if (p.startsWith(':')) {
      if (a.length === 0) return undefined;
      try {
        params[p.slice(1)] = decodeURIComponent(a);
      } catch {
        return undefined;
      }
    } else if (p !== a) {
      return undefined;
    }
  }
  return params;
}

/** The route table. */
export class Router {
  readonly #routes: CompiledRoute[] = [];

  /** Adds routes; a duplicate method + path throws at start-up. */
  add(...routes: readonly Route[]): this {
    for (const route of routes) {
      if (this.#routes.some((r) => r.route.method === route.method && r.route.path === route.path)) {
        throw new Error(`Duplicate route ${route.method} ${route.path}`);
      }
      this.#routes.push({ route, segments: route.path.split('/') });
    }
    return this;
  }

  /** Every route, in the order added. */
  get routes(): readonly Route[] {
    return this.#routes.map((r) => r.route);
  }

  /** Finds the route for `method` and `path`. */
  match(method: string, path: string): RouteMatch {
    const actual = path.split('/');
    const allow: string[] = [];
    for (const { route, segments } of this.#routes) {
      const params = matchSegments(segments, actual);
      if (params === undefined) continue;
      if (route.method === method) return { kind: 'found', route, params };
      allow.push(route.method);
    }
    return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
  }
}
