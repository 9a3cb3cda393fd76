/**
 * Per-key request-rate limits on the server's clock: a sliding-window log
 * (at most `limit` accepted requests in any window of `windowMs`), the one
 * code path for every limited endpoint. A refusal carries the exact wait
 * until the oldest accepted request leaves the window; it becomes a 429 with
 * `Retry-After` (whole seconds, rounded up, at least 1) and
 * `params.retry_after_ms`.
 *
 * Refused requests are not recorded, so a client that waits the announced
 * time always gets through.
 *
 * @module
 */
import type { Clock } from 'agent-messaging-sdk/protocol';
import type { ErrorCode } from 'agent-messaging-sdk/protocol';
import { LIMITS, STATUS_LIMITS } from 'agent-messaging-sdk/protocol';
import { ServerFailure } from '../http/failure.js';

/** One limit: at most `limit` requests per `windowMs`, refused with `code`. */
export interface RateLimitRule {
  readonly limit: number;
  readonly windowMs: number;
  /** Catalogue code of the 429. */
  readonly code: ErrorCode;
  /** What is limited, for the message. */
  readonly what: string;
}

/** The limits of the reference server, by name. */
export const RATE_LIMIT_RULES = Object.freeze({
  /** `POST /agents/:id/messages`: 5 per second per agent. */
  messages: {
    limit: LIMITS.MESSAGES_PER_SECOND,
    windowMs: 1_000,
    code: 'MESSAGE_RATE_LIMITED',
    what: 'messages',
  },
  /** `GET /r2/<object_key>`: 5 per second per agent. */
  objects: {
    limit: LIMITS.OBJECT_FETCHES_PER_SECOND,
    windowMs: 1_000,
    code: 'RATE_LIMITED',
    what: 'object fetches',
  },
  /** File uploads: 5 per second per agent (and per user). */
  files: {
    limit: LIMITS.FILE_UPLOADS_PER_SECOND,
    windowMs: 1_000,
    code: 'FILE_UPLOAD_RATE_LIMITED',
    what: 'file uploads',
  },
  /** `POST /agents/:id/token/regenerate`: 5 per 24 h per agent. */
  tokenRotation: {
    limit: LIMITS.TOKEN_REGENERATIONS_PER_WINDOW,
    windowMs: LIMITS.TOKEN_REGENERATION_WINDOW_MS,
    code: 'TOKEN_ROTATION_RATE_LIMITED',
    what: 'token regenerations',
  },
  /** `PUT /agents/:id/manifest`: 1 accepted update per minute per agent. */
  manifestUpdates: {
    limit: LIMITS.MANIFEST_UPDATES_PER_WINDOW,
    windowMs: LIMITS.MANIFEST_UPDATE_WINDOW_MS,
    code: 'MANIFEST_UPDATE_RATE_LIMITED',
    what: 'manifest updates',
  },
  /** `setStatus` (#26): 4 per 2 s per sender and conversation (the SDK coalesces to 1 per second). */
  status: {
    limit: STATUS_LIMITS.serverLimit,
    windowMs: STATUS_LIMITS.serverWindowMs,
    code: 'RATE_LIMITED',
    what: 'status updates',
  },
} as const satisfies Record<string, RateLimitRule>);

/** Name of a rate limit. */
export type RateLimitName = keyof typeof RATE_LIMIT_RULES;

/** Outcome of {@link RateLimiter.take}. */
export type RateDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

/** The sliding-window log for one rule. */
export class RateLimiter {
  readonly #rule: RateLimitRule;
  readonly #clock: Clock;
  readonly #log = new Map<string, number[]>();

  constructor(rule: RateLimitRule, clock: Clock) {
    this.#rule = rule;
    this.#clock = clock;
  }

  /** Records a request for `key` when the window has room; otherwise says how long to wait. */
  take(key: string): RateDecision {
    const now = this.#clock.now();
    const since = now - this.#rule.windowMs;
    const times = (this.#log.get(key) ?? []).filter((t) => t > since);
    if (times.length >= this.#rule.limit) {
      this.#log.set(key, times);
      return { ok: false, retryAfterMs: Math.max(1, times[0]! + this.#rule.windowMs - now) };
    }
    times.push(now);
    this.#log.set(key, times);
    return { ok: true };
  }

  /** Requests of `key` inside the current window. */
  used(key: string): number {
    const since = this.#clock.now() - this.#rule.windowMs;
    return (this.#log.get(key) ?? []).filter((t) => t > since).length;
  }
}

/** The 429 for a refused request. */
export function rateLimitFailure(rule: RateLimitRule, retryAfterMs: number): ServerFailure {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ServerFailure({
    code: rule.code,
    message: `Too many ${rule.what}: at most ${rule.limit} per ${rule.windowMs / 1000} s. Retry later.`,
    params: {
      retry_after_ms: retryAfterMs,
      retry_after: seconds,
      limit: rule.limit,
      window_ms: rule.windowMs,
    },
    headers: { 'retry-after': String(seconds) },
  });
}

/** Every named limit, sharing one clock. */
export class RateLimits {
  readonly #limiters = new Map<RateLimitName, RateLimiter>();

  constructor(clock: Clock) {
    for (const name of Object.keys(RATE_LIMIT_RULES) as RateLimitName[]) {
      this.#limiters.set(name, new RateLimiter(RATE_LIMIT_RULES[name], clock));
    }
  }

  /**
   * Counts one request of `key` against `name`.
   *
   * @throws {@link ServerFailure} 429 with the rule's code, `Retry-After` and `params.retry_after_ms`.
   * @example
   * ```ts
   * ctx.limits.enforce('objects', principal.agentId);
   * ```
   */
  enforce(name: RateLimitName, key: string): void {
    const decision = this.#limiters.get(name)!.take(key);
    if (!decision.ok) throw rateLimitFailure(RATE_LIMIT_RULES[name], decision.retryAfterMs);
  }

  /** Requests of `key` inside the current window of `name`. */
  used(name: RateLimitName, key: string): number {
    return this.#limiters.get(name)!.used(key);
  }
}
