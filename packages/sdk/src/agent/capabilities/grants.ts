/**
 * `agent.grants`: data grants from the agent's side — ask a user for a
 * scope of their data for a time window, wait for the decision, read the
 * data while the grant lasts. The service refuses a read with 403
 * `GRANT_DENIED` (pending or denied), `GRANT_EXPIRED` (the window ended) or
 * `GRANT_REVOKED` (the user revoked it; the agent also gets `grant.revoked`).
 *
 * @module
 */
import * as z from '../../core/lazy-zod.js';
import {
  GrantDataAnswerSchema,
  GrantDecidedPayloadSchema,
  GrantViewSchema,
  parseGrantData,
  parseGrantScope,
  type ConversationsGrantData,
  type GrantScope,
  type ProfileGrantData,
} from '../../core/protocol/grants.js';
import { MANIFEST_FRAMES, routePath, SERVICE_ROUTES } from '../../core/protocol/service-names.js';
import type { RestClient } from '../../transport/rest/client.js';
import type { AnyAgentEvent } from '../events.js';
import { grantInfo, type GrantInfo } from '../../messaging/grant-info.js';
import { abortable } from './manifest.js';
import type { AskedGrant } from '../decisions.js';

/** Grant requests remembered, oldest dropped first. */
const MAX_ASKED = 1000;

/** What the agent asks for. */
export interface GrantRequestOptions {
  /** A conversation of the agent with the user asked (the grant is the user's). */
  readonly conversationId: string;
  /** The scope: `profile.read` or `conversations.list`. */
  readonly scope: GrantScope;
  /** How long the grant should last once granted, seconds (60 s to 30 days). */
  readonly windowSeconds: number;
  /** Why, in a sentence the user reads. */
  readonly reason: string;
  /** Aborts the request. */
  readonly signal?: AbortSignal;
}

/** Data read under a grant, by scope. */
export type GrantReadResult =
  | {
      readonly grantId: string;
      readonly scope: 'profile.read';
      readonly expiresAt: string;
      readonly data: ProfileGrantData;
    }
  | {
      readonly grantId: string;
      readonly scope: 'conversations.list';
      readonly expiresAt: string;
      readonly data: ConversationsGrantData;
    };

/** What {@link AgentGrants} needs from the Agent. */
export interface AgentGrantsDeps {
  readonly rest: RestClient;
  readonly agentId: string;
  /** Subscribes to every delivered event; returns the unsubscribe function. */
  readonly onEvent: (listener: (event: AnyAgentEvent) => void) => () => void;
}

/**
 * The agent's data grants.
 *
 * @example
 * ```ts
 * const asked = await agent.grants.request({ conversationId, scope: 'profile.read', windowSeconds: 3600,
 *   reason: 'to greet you by name' });
 * const decided = await agent.grants.awaitDecision(asked.grantId);
 * if (decided.status === 'granted') console.log((await agent.grants.read(asked.grantId)).data);
 * agent.on('grant.revoked', (e) => forget(e.payload.grant_id));
 * ```
 */
export class AgentGrants {
  readonly #d: AgentGrantsDeps;
  /** What this process asked, by grant id: a signed decision must match it. */
  readonly #asked = new Map<string, AskedGrant>();

  /** @internal Created by the Agent (`agent.grants`). */
  constructor(deps: AgentGrantsDeps) {
    this.#d = deps;
  }

  /**
   * Asks the user of `conversationId` for a grant (`POST /agents/:id/grants`); resolves with the pending request.
   *
   * @throws {@link ValidationError} for an unknown scope (before any request);
   * {@link ServiceError} `CONVERSATION_FORBIDDEN`, `RELATION_REVOKED`, `VALIDATION_ERROR` (window, reason).
   */
  async request(o: GrantRequestOptions): Promise<GrantInfo> {
    const scope = parseGrantScope(o.scope);
    const view = await this.#d.rest.post(
      routePath(SERVICE_ROUTES.requestGrant, { id: this.#d.agentId }),
      { conversation_id: o.conversationId, scope, window_seconds: o.windowSeconds, reason: o.reason },
      { schema: GrantViewSchema, ...(o.signal === undefined ? {} : { signal: o.signal }) },
    );
    if (this.#asked.size >= MAX_ASKED) this.#asked.delete(this.#asked.keys().next().value!);
    this.#asked.set(view.grant_id, {
      conversationId: o.conversationId,
      scope,
      windowSeconds: o.windowSeconds,
    });
    return grantInfo(view);
  }

  /** @internal The grant this process asked as `grantId`, if it remembers it. */
  asked(grantId: string): AskedGrant | undefined {
    return this.#asked.get(grantId);
  }

  /** `GET /agents/:id/grants/:grant_id`. */
  async get(grantId: string, options: { signal?: AbortSignal } = {}): Promise<GrantInfo> {
    const path = routePath(SERVICE_ROUTES.agentGrant, { id: this.#d.agentId, grant_id: grantId });
    return grantInfo(await this.#d.rest.get(path, { schema: GrantViewSchema, ...signalOf(options) }));
  }

  /** `GET /agents/:id/grants`: every request and grant of the agent. */
  async list(options: { signal?: AbortSignal } = {}): Promise<GrantInfo[]> {
    const path = routePath(SERVICE_ROUTES.agentGrants, { id: this.#d.agentId });
    return (await this.#d.rest.get(path, { schema: z.array(GrantViewSchema), ...signalOf(options) })).map(
      grantInfo,
    );
  }

  /**
   * Resolves with the grant once the user decided (`granted` or `denied`):
   * at once when already decided, else on the `grant.decided` event (the
   * agent must be connected, by WebSocket or webhook).
   *
   * @throws the signal's reason when `options.signal` aborts first.
   */
  async awaitDecision(grantId: string, options: { signal?: AbortSignal } = {}): Promise<GrantInfo> {
    let settle: (() => void) | undefined;
    const decided = new Promise<void>((resolve) => (settle = resolve));
    const off = this.#d.onEvent((event) => {
      if (event.type !== MANIFEST_FRAMES.grantDecided || !event.sealed) return;
      const p = GrantDecidedPayloadSchema.safeParse(event.payload);
      if (p.success && p.data.grant_id === grantId) settle?.();
    });
    try {
      const now = await this.get(grantId, options);
      if (now.status !== 'pending') return now;
      await abortable(decided, options.signal);
      return await this.get(grantId, options);
    } finally {
      off();
    }
  }

  /**
   * Reads the data of a granted scope (`GET /agents/:id/grants/:grant_id/data`).
   *
   * @throws {@link ServiceError} `GRANT_DENIED` (pending or denied), `GRANT_EXPIRED`,
   * `GRANT_REVOKED` (all 403), `NOT_FOUND`; {@link ValidationError} when the data does not fit its scope.
   */
  async read(grantId: string, options: { signal?: AbortSignal } = {}): Promise<GrantReadResult> {
    const path = routePath(SERVICE_ROUTES.readGrant, { id: this.#d.agentId, grant_id: grantId });
    const answer = await this.#d.rest.get(path, { schema: GrantDataAnswerSchema, ...signalOf(options) });
    const base = { grantId: answer.grant_id, expiresAt: answer.expires_at };
    return answer.scope === 'profile.read'
      ? { ...base, scope: answer.scope, data: parseGrantData(answer.scope, answer.data) }
      : { ...base, scope: answer.scope, data: parseGrantData(answer.scope, answer.data) };
  }
}

function signalOf(o: { signal?: AbortSignal }): { signal?: AbortSignal } {
  return o.signal === undefined ? {} : { signal: o.signal };
}
