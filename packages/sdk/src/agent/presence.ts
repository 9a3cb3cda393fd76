/**
 * The agent's status (#26): `ctx.status('searching the web…')` and the
 * automatic "working" indicator of a turn, sealed end to end and posted to
 * the `setStatus` route (REST, in both modes).
 *
 * One {@link StatusBeacon} per agent keeps, per conversation, the state the
 * author wants (`working` with an optional text, or nothing) and the state
 * the receivers were last told, and posts the difference:
 * - **coalescing**: at most one post per conversation per
 *   `STATUS_LIMITS.clientMinIntervalMs` (1 s); a change inside that interval
 *   waits for its end and only the latest state goes, so a chatty author
 *   cannot exceed the server's limit (4 per 2 s);
 * - **keep-alive**: while a turn runs, a `working` state is posted again
 *   every `ttlMs / 3`, so receivers (which drop it after `ttlMs`) keep
 *   showing it through a long tool call without the author doing anything;
 * - **cleared by the reply**: receivers clear a sender's status when its
 *   next message arrives, so a sent message also clears it here (nothing is
 *   posted); at the end of a turn that did not reply, an `idle` is posted.
 *
 * The turn seam is {@link StatusBeacon.beginTurn}: the pipeline calls it
 * where a handler starts and calls what it returns where the handler ends.
 *
 * @module
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { isValidationError } from '../core/errors/guards.js';
import { ValidationError } from '../core/errors/validation-error.js';
import type { Logger } from '../core/logger.js';
import { parseWith } from '../core/protocol/parse.js';
import { PRESENCE_FRAMES, PRESENCE_ROUTES, routePath } from '../core/protocol/service-names.js';
import {
  STATUS_LIMITS,
  StatusAnswerSchema,
  StatusPayloadSchema,
  type StatusPayload,
} from '../core/protocol/status.js';
import type { MessageSender } from '../messaging/sender.js';
import type { RestClient } from '../transport/rest/client.js';
import type { StreamWriter } from './streams/writer.js';

/**
 * The automatic "working" indicator and status keep-alive (option `status`
 * of the Agent; `false` turns the automatic indicator off, `ctx.status()`
 * still works).
 */
export interface StatusIndicatorOptions {
  /**
   * Show "working" while a handler runs, without any call. @defaultValue true
   */
  readonly auto?: boolean;
  /**
   * How long a turn runs before the automatic indicator is posted, ms: a turn
   * that replies sooner posts nothing. @defaultValue 500
   */
  readonly delayMs?: number;
  /**
   * How long receivers show a status without a refresh, ms (1 000 to
   * 60 000); a running turn refreshes it every third of it. @defaultValue 15 000
   */
  readonly ttlMs?: number;
}

/** The resolved indicator options. */
export interface ResolvedStatusOptions {
  readonly auto: boolean;
  readonly delayMs: number;
  readonly ttlMs: number;
}

/** Every default of {@link StatusIndicatorOptions}. */
export const DEFAULT_STATUS_OPTIONS: ResolvedStatusOptions = Object.freeze({
  auto: true,
  delayMs: 500,
  ttlMs: STATUS_LIMITS.defaultTtlMs,
});

/**
 * Resolves the `status` option of the Agent.
 *
 * @throws {@link ConfigurationError} for a delay below 0 or a TTL out of bounds.
 */
export function resolveStatusOptions(o: StatusIndicatorOptions | false | undefined): ResolvedStatusOptions {
  if (o === false) return { ...DEFAULT_STATUS_OPTIONS, auto: false };
  const r = { ...DEFAULT_STATUS_OPTIONS, ...o };
  const bad = (path: string, rule: string): ConfigurationError =>
    new ConfigurationError({ option: `status.${path}`, message: `Option "status.${path}" must be ${rule}.` });
  if (!Number.isFinite(r.delayMs) || r.delayMs < 0) throw bad('delayMs', 'a delay of 0 ms or more');
  if (!Number.isInteger(r.ttlMs) || r.ttlMs < STATUS_LIMITS.minTtlMs || r.ttlMs > STATUS_LIMITS.maxTtlMs) {
    throw bad('ttlMs', `a whole number of ms from ${STATUS_LIMITS.minTtlMs} to ${STATUS_LIMITS.maxTtlMs}`);
  }
  return r;
}

/** What the beacon needs. */
export interface StatusBeaconDeps {
  readonly options: ResolvedStatusOptions;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly rest: () => RestClient;
  readonly sender: () => Promise<MessageSender>;
}

/** The state receivers should show: `working` (with a text or not), or nothing. */
type Shown = { readonly text: string | undefined } | null;

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

interface Lane {
  /** What the author wants shown now. */
  desired: Shown;
  /** What receivers were last told (null: nothing, or cleared by a reply). */
  sent: Shown;
  /** Turns running in the conversation. */
  turns: number;
  /** A post is under way. */
  posting: boolean;
  /** Inside the coalescing interval after a post (`cooldown` ends it). */
  cooling: boolean;
  cooldown: TimerHandle | undefined;
  /** The keep-alive is due (`refresh` sets it). */
  refreshDue: boolean;
  refresh: TimerHandle | undefined;
  /** Callers of `set` waiting for their state to be posted. */
  waiters: Waiter[];
}

const same = (a: Shown, b: Shown): boolean => (a === null ? b === null : b !== null && a.text === b.text);

/**
 * Per-conversation status of one agent: coalesced, kept alive during turns,
 * cleared by replies. Its intervals run on timers only (never on differences
 * of `clock.now()`), so a frozen clock cannot stall it.
 */
export class StatusBeacon {
  readonly #d: StatusBeaconDeps;
  readonly #lanes = new Map<string, Lane>();
  #closed = false;
  #posts = 0;

  constructor(deps: StatusBeaconDeps) {
    this.#d = deps;
  }

  /** Status posts made so far (keep-alives included). */
  get posts(): number {
    return this.#posts;
  }

  /**
   * Sets the status of `conversationId`: a text (shown as "working: text"),
   * `''` for a plain working indicator, or `null` to clear it. Resolves once
   * the state was posted, or superseded by a later one before it was.
   *
   * @throws {@link ValidationError} for a text above 200 characters;
   * {@link RateLimitError} `RATE_LIMITED` when the service refused the post;
   * what a send throws (`RELATION_REVOKED` …).
   */
  set(conversationId: string, text: string | null): Promise<void> {
    if (text !== null && text.length > STATUS_LIMITS.maxTextChars) {
      return Promise.reject(
        new ValidationError({
          message: `A status text has at most ${STATUS_LIMITS.maxTextChars} characters.`,
          issues: [{ path: ['text'], message: 'too long' }],
        }),
      );
    }
    if (this.#closed) return Promise.resolve();
    const lane = this.#lane(conversationId);
    lane.desired = text === null ? null : { text: text === '' ? undefined : text };
    const done = new Promise<void>((resolve, reject) => lane.waiters.push({ resolve, reject }));
    this.#pump(conversationId, lane);
    return done;
  }

  /**
   * The turn seam: a handler starts in `conversationId`. The automatic
   * indicator goes after `delayMs` unless the turn replied or set a status
   * first; the returned function ends the turn (an `idle` is posted when a
   * status is still shown and no other turn runs there).
   */
  beginTurn(conversationId: string): () => void {
    if (this.#closed || conversationId === 'system') return () => undefined;
    const lane = this.#lane(conversationId);
    lane.turns++;
    let replied = false;
    const repliedBefore = this.#replies.get(conversationId) ?? 0;
    let auto: TimerHandle | undefined;
    if (this.#d.options.auto) {
      auto = this.#d.clock.setTimeout(
        () => {
          auto = undefined;
          replied = (this.#replies.get(conversationId) ?? 0) !== repliedBefore;
          if (!replied && lane.desired === null && !this.#closed) {
            lane.desired = { text: undefined };
            this.#pump(conversationId, lane);
          }
        },
        this.#d.options.delayMs,
        { background: true },
      );
    }
    const release = this.#release(conversationId, lane);
    return () => {
      if (auto !== undefined) this.#d.clock.clearTimeout(auto);
      auto = undefined;
      release();
    };
  }

  /**
   * A reply stream opened in `conversationId` while a turn runs there holds
   * the turn's status until the stream is over: the indicator (kept alive)
   * ends with the stream, not with the handler that opened it. Returns the
   * release; nothing is held when no turn runs there.
   */
  hold(conversationId: string): () => void {
    const lane = this.#lanes.get(conversationId);
    if (this.#closed || lane === undefined || lane.turns === 0) return () => undefined;
    lane.turns++;
    return this.#release(conversationId, lane);
  }

  /** Ends one holder of a lane's turn (once); the last one clears the status. */
  #release(conversationId: string, lane: Lane): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      lane.turns--;
      if (lane.turns === 0 && !this.#closed) {
        lane.desired = null;
        this.#pump(conversationId, lane);
      }
    };
  }

  /** Replies sent per conversation while a lane exists (so a turn knows it replied). */
  readonly #replies = new Map<string, number>();

  /** A message was sent into `conversationId`: receivers cleared the status on their own. */
  replied(conversationId: string): void {
    const lane = this.#lanes.get(conversationId);
    if (lane === undefined) return;
    this.#replies.set(conversationId, (this.#replies.get(conversationId) ?? 0) + 1);
    lane.desired = null;
    // A post still under way may land after the message: then receivers are told again.
    if (!lane.posting) lane.sent = null;
    this.#pump(conversationId, lane);
  }

  /** Stops every timer; nothing more is posted (receivers drop the status after its TTL). */
  close(): void {
    this.#closed = true;
    for (const lane of this.#lanes.values()) {
      this.#stopTimers(lane);
      this.#settle(lane);
    }
    this.#lanes.clear();
    this.#replies.clear();
  }

  #lane(conversationId: string): Lane {
    let lane = this.#lanes.get(conversationId);
    if (lane === undefined) {
      lane = {
        desired: null,
        sent: null,
        turns: 0,
        posting: false,
        cooling: false,
        cooldown: undefined,
        refreshDue: false,
        refresh: undefined,
        waiters: [],
      };
      this.#lanes.set(conversationId, lane);
    }
    return lane;
  }

  #stopTimers(lane: Lane): void {
    if (lane.cooldown !== undefined) this.#d.clock.clearTimeout(lane.cooldown);
    if (lane.refresh !== undefined) this.#d.clock.clearTimeout(lane.refresh);
    lane.cooldown = undefined;
    lane.refresh = undefined;
  }

  /** Resolves the callers whose state needs no post any more. */
  #settle(lane: Lane): void {
    const waiters = lane.waiters;
    lane.waiters = [];
    for (const w of waiters) w.resolve();
  }

  /** Posts what receivers should be told now, unless a post is under way or the interval runs. */
  #pump(conversationId: string, lane: Lane): void {
    if (this.#closed || lane.posting) return;
    const keepAlive = lane.refreshDue && lane.desired !== null && lane.turns > 0;
    if (same(lane.desired, lane.sent) && !keepAlive) {
      lane.refreshDue = false;
      this.#settle(lane);
      if (lane.desired === null && lane.refresh !== undefined) {
        this.#d.clock.clearTimeout(lane.refresh);
        lane.refresh = undefined;
      }
      if (lane.desired === null && lane.turns === 0 && !lane.cooling && lane.waiters.length === 0) {
        this.#stopTimers(lane);
        this.#lanes.delete(conversationId);
        this.#replies.delete(conversationId);
      }
      return;
    }
    if (lane.cooling) return; // the cooldown timer pumps again with the latest state
    this.#post(conversationId, lane);
  }

  #post(conversationId: string, lane: Lane): void {
    const shown = lane.desired;
    const waiters = lane.waiters;
    lane.waiters = [];
    lane.posting = true;
    lane.sent = shown;
    lane.refreshDue = false;
    lane.cooling = true;
    this.#posts++;
    const clock = this.#d.clock;
    lane.cooldown = clock.setTimeout(
      () => {
        lane.cooldown = undefined;
        lane.cooling = false;
        this.#pump(conversationId, lane);
      },
      STATUS_LIMITS.clientMinIntervalMs,
      { background: true },
    );
    if (lane.refresh !== undefined) clock.clearTimeout(lane.refresh);
    lane.refresh = undefined;
    if (shown !== null && lane.turns > 0) {
      lane.refresh = clock.setTimeout(
        () => {
          lane.refresh = undefined;
          lane.refreshDue = true;
          this.#pump(conversationId, lane);
        },
        Math.floor(this.#d.options.ttlMs / 3),
        { background: true },
      );
    }
    const payload: StatusPayload =
      shown === null
        ? { type: 'status', state: 'idle' }
        : {
            type: 'status',
            state: 'working',
            ...(shown.text === undefined ? {} : { text: shown.text }),
            ttl_ms: this.#d.options.ttlMs,
          };
    postStatus(this.#d, conversationId, payload).then(
      () => {
        lane.posting = false;
        for (const w of waiters) w.resolve();
        this.#pump(conversationId, lane);
      },
      (error: unknown) => {
        // Not retried at once: a running turn's keep-alive posts again.
        lane.posting = false;
        this.#d.logger.warn('a status could not be posted', {
          conversationId,
          error: (error as Error)?.name,
        });
        for (const w of waiters) w.reject(error);
        this.#pump(conversationId, lane);
      },
    );
  }
}

/**
 * Seals `payload` as `status.update` to the conversation's members and posts
 * it (one attempt: the beacon retries with its keep-alive, not the REST client).
 *
 * @throws {@link RateLimitError} `RATE_LIMITED`; {@link ServiceError} `RELATION_REVOKED`, `CONVERSATION_FORBIDDEN` …
 */
export async function postStatus(
  d: Pick<StatusBeaconDeps, 'rest' | 'sender'>,
  conversationId: string,
  payload: StatusPayload,
): Promise<boolean> {
  const checked = parseWith(StatusPayloadSchema, payload, 'status');
  const sender = await d.sender();
  const answer = await sender.sealAndPost(
    conversationId,
    checked,
    { eventType: PRESENCE_FRAMES.statusUpdate },
    (wire) =>
      d.rest().request({
        method: PRESENCE_ROUTES.setStatus.method,
        path: routePath(PRESENCE_ROUTES.setStatus, { id: conversationId }),
        body: { wire_envelope: wire },
        schema: StatusAnswerSchema,
        maxAttempts: 1,
      }),
  );
  return answer.delivered;
}

/**
 * Calls `release` once `writer` is over: ended, aborted, or failed (a write
 * rejected with anything but a ValidationError about its own input).
 */
export function holdWhileOpen(writer: StreamWriter, release: () => void): void {
  const { end, abort, write, reasoning, step, toolCall, toolResult, source } = writer;
  const failed = (err: unknown): never => {
    if (!isValidationError(err)) release();
    throw err;
  };
  writer.end = (final) => end(final).finally(release);
  writer.abort = (reason) => abort(reason).finally(release);
  writer.write = (delta) => write(delta).catch(failed);
  writer.reasoning = (text) => reasoning(text).catch(failed);
  writer.step = (s) => step(s).catch(failed);
  writer.toolCall = (call) => toolCall(call).catch(failed);
  writer.toolResult = (result) => toolResult(result).catch(failed);
  writer.source = (src) => source(src).catch(failed);
}
