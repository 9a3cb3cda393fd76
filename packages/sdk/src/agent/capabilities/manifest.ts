/**
 * `agent.manifest`: the agent's capability manifest — checked on the client
 * (size first: a warning at 64 KB and above, {@link ManifestTooLargeError}
 * above 128 KB), proposed to the owner, and the owner's decision awaited.
 *
 * Rate limit (1 update per minute per agent): updates are queued, one at a
 * time; an update inside the minute after the last accepted one waits until
 * the minute has passed, and a 429 from the service (another process updated)
 * waits its Retry-After and is sent again — unless `failFast` is set, then the
 * {@link RateLimitError} `MANIFEST_UPDATE_RATE_LIMITED` surfaces at once.
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import type { RateLimiter } from '../../core/rate-limiter.js';
import { ManifestTooLargeError } from '../../core/errors/manifest-too-large-error.js';
import { RateLimitError } from '../../core/errors/rate-limit-error.js';
import { isServiceError, isRateLimitError } from '../../core/errors/guards.js';
import { LIMITS } from '../../core/limits.js';
import type { Logger } from '../../core/logger.js';
import {
  CapabilityChangedPayloadSchema,
  ManifestRevisionSchema,
  ManifestStateSchema,
  manifestSizeBytes,
  manifestSizeVerdict,
  parseCapabilityManifest,
  type CapabilityManifest,
  type ManifestDecision,
  type ManifestRevision,
  type ManifestState,
} from '../../core/protocol/manifest.js';
import { routePath, SERVICE_ROUTES } from '../../core/protocol/service-names.js';
import type { RestClient } from '../../transport/rest/client.js';
import type { AgentWarning, AnyAgentEvent } from '../events.js';
import { waitUntil } from './wait.js';
import { manifestSha256 } from '../../crypto/decision.js';

/** Proposed manifests remembered (their digests), oldest dropped first. */
const MAX_PROPOSED = 1000;

export type { AgentWarning } from '../events.js';

/** Options of {@link AgentManifest.update}. */
export interface ManifestUpdateOptions {
  /** The head version this change is based on (`(await agent.manifest.get()).head_version`; 0 for the first). */
  readonly basedOnVersion: number;
  /**
   * Fail at once with `MANIFEST_UPDATE_RATE_LIMITED` instead of waiting for the rate limit.
   * @defaultValue false
   */
  readonly failFast?: boolean;
  /**
   * Longest wait for the rate limit, ms; a longer one fails with `MANIFEST_UPDATE_RATE_LIMITED`.
   * @defaultValue 120 000 (two windows)
   */
  readonly maxWaitMs?: number;
  /** Aborts the update, also while it waits; the signal's reason is thrown. */
  readonly signal?: AbortSignal;
}

/** The owner's decision on a manifest version. */
export interface ManifestDecisionInfo {
  readonly version: number;
  readonly decision: ManifestDecision;
}

/** What {@link AgentManifest} needs from the Agent. */
export interface AgentManifestDeps {
  readonly rest: RestClient;
  readonly agentId: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Raises the Agent's `warning` event. */
  readonly warn: (warning: AgentWarning) => void;
  /** Subscribes to every delivered event; returns the unsubscribe function. */
  readonly onEvent: (listener: (event: AnyAgentEvent) => void) => () => void;
  /**
   * The `manifests` limiter of the `rateLimiters` option (1 update per minute
   * shared by every copy), taken before each request; absent: this copy's own wait only.
   */
  readonly limiter?: RateLimiter;
}

/** Default of {@link ManifestUpdateOptions.maxWaitMs}. */
export const MANIFEST_MAX_WAIT_MS = 2 * LIMITS.MANIFEST_UPDATE_WINDOW_MS;

/**
 * Checks a manifest as the service will: size (UTF-8 bytes of the canonical
 * JSON) first, then the fields.
 *
 * @returns the manifest, its size and whether it is at or above the 64 KB warning line.
 * @throws {@link ManifestTooLargeError} above 128 KB (with `sizeBytes`);
 * {@link ValidationError} for a field that does not fit the schema.
 */
export function checkManifest(input: unknown): {
  readonly manifest: CapabilityManifest;
  readonly sizeBytes: number;
  readonly warning: boolean;
} {
  const sizeBytes = manifestSizeBytes(input ?? null);
  const verdict = manifestSizeVerdict(sizeBytes);
  if (verdict === 'too_large') {
    throw new ManifestTooLargeError({ sizeBytes, maxBytes: LIMITS.MANIFEST_MAX_BYTES, clientSide: true });
  }
  return { manifest: parseCapabilityManifest(input), sizeBytes, warning: verdict === 'warn' };
}

/**
 * The agent's capability manifest.
 *
 * @example
 * ```ts
 * const { head_version } = await agent.manifest.get();
 * const revision = await agent.manifest.update(manifest, { basedOnVersion: head_version });
 * const { decision } = await agent.manifest.awaitDecision(revision.version);
 * ```
 */
export class AgentManifest {
  readonly #d: AgentManifestDeps;
  #queue: Promise<unknown> = Promise.resolve();
  #notBeforeMs = 0;
  /** SHA-256 of each manifest this process proposed, by version (what the owner must have signed). */
  readonly #proposed = new Map<number, string>();

  /** @internal Created by the Agent (`agent.manifest`). */
  constructor(deps: AgentManifestDeps) {
    this.#d = deps;
  }

  /** @internal SHA-256 (hex) of the manifest this process proposed as `version`, if it did. */
  proposedDigest(version: number): string | undefined {
    return this.#proposed.get(version);
  }

  /** `GET /agents/:id/manifest`: the accepted revision, the pending one, the head version. */
  get(options: { signal?: AbortSignal } = {}): Promise<ManifestState> {
    return this.#d.rest.get(routePath(SERVICE_ROUTES.getManifest, { id: this.#d.agentId }), {
      schema: ManifestStateSchema,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /**
   * Proposes `manifest` to the owner (`PUT /agents/:id/manifest`); resolves
   * with the pending revision. Updates are queued one at a time and wait for
   * the rate limit (see the module notes).
   *
   * @throws {@link ManifestTooLargeError} above 128 KB, before any request (or from the service);
   * {@link ValidationError} for a bad field; {@link ServiceError} `MANIFEST_VERSION_CONFLICT`
   * when `basedOnVersion` is not the head (see {@link AgentManifest.updateWithRetry});
   * {@link RateLimitError} `MANIFEST_UPDATE_RATE_LIMITED` with `failFast`, or beyond `maxWaitMs`.
   */
  update(manifest: CapabilityManifest, options: ManifestUpdateOptions): Promise<ManifestRevision> {
    let checked: ReturnType<typeof checkManifest>;
    try {
      checked = checkManifest(manifest);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (checked.warning) this.#warnSize(checked.sizeBytes);
    const run = this.#queue.then(
      () => this.#send(checked.manifest, options),
      () => this.#send(checked.manifest, options),
    );
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Re-read and retry: reads the state, builds the manifest with `build(state)`
   * and proposes it based on the head read; on `MANIFEST_VERSION_CONFLICT`
   * reads again and rebuilds, at most `maxAttempts` times.
   *
   * @throws the last `MANIFEST_VERSION_CONFLICT` when every attempt conflicted; errors of {@link AgentManifest.update}.
   */
  async updateWithRetry(
    build: (state: ManifestState) => CapabilityManifest,
    options: Omit<ManifestUpdateOptions, 'basedOnVersion'> & { readonly maxAttempts?: number } = {},
  ): Promise<ManifestRevision> {
    const attempts = options.maxAttempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      const state = await this.get(options.signal === undefined ? {} : { signal: options.signal });
      try {
        return await this.update(build(state), { ...options, basedOnVersion: state.head_version });
      } catch (err) {
        if (!isServiceError(err, 'MANIFEST_VERSION_CONFLICT') || attempt >= attempts) throw err;
        this.#d.logger.info('manifest version conflict: re-reading', { attempt });
      }
    }
  }

  /**
   * Resolves with the owner's decision on `version`, from
   * `agent.capability_changed` (the agent must be connected: WebSocket or
   * webhook). A decision already taken is read from the service at once.
   *
   * @throws the signal's reason when `options.signal` aborts first.
   */
  async awaitDecision(
    version: number,
    options: { signal?: AbortSignal } = {},
  ): Promise<ManifestDecisionInfo> {
    let settle: ((info: ManifestDecisionInfo) => void) | undefined;
    const fromEvent = new Promise<ManifestDecisionInfo>((resolve) => (settle = resolve));
    const off = this.#d.onEvent((event) => {
      const decided = capabilityDecision(event);
      if (decided?.version === version) settle?.(decided);
    });
    try {
      const known = decisionOf(await this.get(options), version);
      if (known !== undefined) return known;
      return await abortable(fromEvent, options.signal);
    } finally {
      off();
    }
  }

  async #send(manifest: CapabilityManifest, o: ManifestUpdateOptions): Promise<ManifestRevision> {
    const maxWaitMs = o.maxWaitMs ?? MANIFEST_MAX_WAIT_MS;
    for (;;) {
      const waitMs = this.#notBeforeMs - this.#d.clock.now();
      if (waitMs > 0) {
        if (o.failFast === true || waitMs > maxWaitMs) throw localRateLimit(waitMs);
        this.#d.logger.info('manifest update queued behind the rate limit', { waitMs });
        await waitUntil(this.#d.clock, this.#notBeforeMs, o.signal);
      }
      // The copies' shared minute (#25): waits (abortable) while a sibling updated within it.
      await this.#d.limiter?.acquire(o.signal);
      try {
        const revision = await this.#d.rest.request({
          method: SERVICE_ROUTES.updateManifest.method,
          path: routePath(SERVICE_ROUTES.updateManifest, { id: this.#d.agentId }),
          body: { manifest, based_on_version: o.basedOnVersion },
          schema: ManifestRevisionSchema,
          maxAttempts: 1,
          ...(o.signal === undefined ? {} : { signal: o.signal }),
        });
        this.#notBeforeMs = this.#d.clock.now() + LIMITS.MANIFEST_UPDATE_WINDOW_MS;
        if (this.#proposed.size >= MAX_PROPOSED) this.#proposed.delete(this.#proposed.keys().next().value!);
        this.#proposed.set(revision.version, manifestSha256(manifest));
        return revision;
      } catch (err) {
        if (isServiceError(err, 'MANIFEST_TOO_LARGE')) {
          const size = Number(err.params['size_bytes']);
          throw new ManifestTooLargeError({
            sizeBytes: Number.isFinite(size) ? size : manifestSizeBytes(manifest),
            maxBytes: LIMITS.MANIFEST_MAX_BYTES,
            clientSide: false,
            cause: err,
          });
        }
        if (!isRateLimitError(err) || err.code !== 'MANIFEST_UPDATE_RATE_LIMITED' || o.failFast === true)
          throw err;
        const after = err.retryAfterMs ?? LIMITS.MANIFEST_UPDATE_WINDOW_MS;
        if (after > maxWaitMs) throw err;
        this.#notBeforeMs = this.#d.clock.now() + after;
      }
    }
  }

  #warnSize(sizeBytes: number): void {
    const warning: AgentWarning = {
      code: 'MANIFEST_SIZE_WARNING',
      message: `The capability manifest is ${sizeBytes} bytes: at or above the ${LIMITS.MANIFEST_WARN_BYTES}-byte warning line (limit ${LIMITS.MANIFEST_MAX_BYTES}).`,
      sizeBytes,
      warnBytes: LIMITS.MANIFEST_WARN_BYTES,
      maxBytes: LIMITS.MANIFEST_MAX_BYTES,
    };
    this.#d.logger.warn(warning.message, { sizeBytes });
    this.#d.warn(warning);
  }
}

function localRateLimit(waitMs: number): RateLimitError<'MANIFEST_UPDATE_RATE_LIMITED'> {
  return new RateLimitError({
    code: 'MANIFEST_UPDATE_RATE_LIMITED',
    status: 429,
    message: `At most ${LIMITS.MANIFEST_UPDATES_PER_WINDOW} manifest update per minute: the next one is allowed in ${Math.ceil(waitMs / 1000)} s.`,
    retryAfterMs: waitMs,
    params: { retry_after_ms: waitMs, client_side: true },
  });
}

/** The decision an `agent.capability_changed` event carries, if it is one and well-formed. */
export function capabilityDecision(event: AnyAgentEvent): ManifestDecisionInfo | undefined {
  if (event.type !== 'agent.capability_changed' || !event.sealed) return undefined;
  const p = CapabilityChangedPayloadSchema.safeParse(event.payload);
  return p.success ? { version: p.data.version, decision: p.data.decision } : undefined;
}

function decisionOf(state: ManifestState, version: number): ManifestDecisionInfo | undefined {
  if (state.current?.version === version) return { version, decision: 'accepted' };
  const last = state.last_decided;
  if (last?.version === version && (last.status === 'accepted' || last.status === 'rejected')) {
    return { version, decision: last.status };
  }
  return undefined;
}

/** `promise`, or the signal's reason when `signal` aborts first. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
