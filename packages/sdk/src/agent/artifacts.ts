/**
 * Artifacts from the agent's side: send one (content sealed end to end,
 * routing metadata in clear), update it with `based_on_revision`, await the
 * answer.
 *
 * ```ts
 * const artifact = await agent.artifacts.send(conversationId, {
 *   content: { kind: 'confirm', title: 'Delete 3 files?' },
 *   sensitivity: 'high',
 * });
 * const outcome = await artifact.response({ timeoutMs: 60_000 });
 * if (outcome.status === 'approved') await deleteFiles();
 * ```
 *
 * Answers arrive as `artifact_response` events (webhook or WebSocket); this
 * module listens to them and settles the matching handle, so `response()`
 * works in both modes. `artifact.expired` is WebSocket only: in webhook mode
 * an expired artifact settles only through the caller's own `timeoutMs`.
 *
 * @module
 */
import type { Clock } from '../core/clock.js';
import type { ArtifactDeniedReason } from '../core/errors/codes.js';
import { isServiceError } from '../core/errors/guards.js';
import { TimeoutError } from '../core/errors/timeout-error.js';
import {
  ARTIFACT_LIMITS,
  ArtifactAnswerPayloadSchema,
  ArtifactViewSchema,
  HUMAN_DENIED_REASONS,
  SERVICE_DENIED_REASONS,
  parseArtifactContent,
  type ArtifactContent,
  type ArtifactPayload,
  type ArtifactSensitivity,
  type ArtifactState,
  type ArtifactView,
} from '../core/protocol/artifacts.js';
import { ARTIFACT_ROUTES, routePath } from '../core/protocol/service-names.js';
import { SYSTEM_SENDER_ID } from '../core/protocol/system-events.js';
import type { Logger } from '../core/logger.js';
import type { RestClient } from '../transport/rest/client.js';
import type { TypedEmitter } from './emitter.js';
import type {
  AgentListenerArgs,
  ArtifactExpiredEvent,
  ArtifactResponseEvent,
  DecisionRefusalReason,
} from './events.js';
import type { VetRefusal } from './pipeline/types.js';
import type { OpenedEnvelope } from '../crypto/open-options.js';
import type { ForwardedCopy, RelayActions } from '../messaging/relay-actions.js';
import type { MessageSender } from '../messaging/sender.js';

/** What to send. */
export interface ArtifactSpec {
  /** What the artifact asks (`confirm`, `form`, `tool_request`). */
  readonly content: ArtifactContent;
  /** May the human (or the agent) forward it. @defaultValue false */
  readonly forwardable?: boolean;
  /** `high`: denied `user_timeout` when unanswered for 30 s. @defaultValue `'normal'` */
  readonly sensitivity?: ArtifactSensitivity;
  /** Time to live (1 s to 7 days); then `artifact.expired`. @defaultValue 24 h */
  readonly ttlMs?: number;
  /** The artifact id. @defaultValue a random UUID */
  readonly artifactId?: string;
}

/** Changes of an update (content and flags; unset flags keep their value). */
export type ArtifactChange = Omit<ArtifactSpec, 'artifactId'>;

/** How an artifact ended. */
export type ArtifactOutcome =
  | {
      readonly status: 'approved';
      readonly artifactId: string;
      readonly revision: number;
      /** The human's data (form values, a tool's result; `{}` for a confirmation). */
      readonly data: Readonly<Record<string, unknown>>;
      readonly event: ArtifactResponseEvent;
    }
  | {
      readonly status: 'denied';
      readonly artifactId: string;
      readonly revision: number;
      readonly reason: ArtifactDeniedReason;
      /** `user` for the human's own denial, `service` for the service's (timeouts, revocation, groups). */
      readonly by: 'user' | 'service';
      readonly event: ArtifactResponseEvent;
    }
  | {
      readonly status: 'expired';
      readonly artifactId: string;
      readonly revision: number;
      readonly event: ArtifactExpiredEvent;
    };

/** Options of {@link ArtifactHandle.response}. */
export interface ArtifactResponseOptions {
  /** Give up after this long (a {@link TimeoutError}; the artifact stays open). @defaultValue no limit */
  readonly timeoutMs?: number;
}

/** Options of {@link ArtifactHandle.update}. */
export interface ArtifactUpdateOptions {
  /** Attempts in all (re-read and retry after a conflict). @defaultValue 3 */
  readonly maxAttempts?: number;
}

/** The artifact's state as the service sees it (routing metadata, camelCase). */
export interface ArtifactStatus {
  readonly artifactId: string;
  readonly conversationId: string;
  readonly revision: number;
  readonly state: ArtifactState;
  readonly forwardable: boolean;
  readonly sensitivity: ArtifactSensitivity;
  readonly expiresAt: string;
  readonly toolTimeoutMs: number | null;
  readonly messageId: string;
  readonly reason: ArtifactDeniedReason | null;
}

/** What {@link AgentArtifacts} needs from the agent. */
export interface AgentArtifactsDeps {
  readonly agentId: string;
  /**
   * The kind of a peer (`user`, `agent`, …) as the key directory knows it;
   * undefined when it cannot be looked up. Only `user` peers may answer.
   */
  readonly peerKind: (peerId: string) => Promise<string | undefined>;
  /** The members of a conversation as the key directory knows them (answers to artifacts of another process). */
  readonly members: (conversationId: string) => Promise<readonly string[]>;
  readonly rest: () => RestClient;
  readonly sender: () => Promise<MessageSender>;
  readonly emitter: TypedEmitter<AgentListenerArgs>;
  readonly relay: RelayActions;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Handles kept (oldest dropped first), settled ones included so late answers are still checked. */
const MAX_HANDLES = 10_000;

const statusOf = (v: ArtifactView): ArtifactStatus => ({
  artifactId: v.artifact_id,
  conversationId: v.conversation_id,
  revision: v.revision,
  state: v.state,
  forwardable: v.forwardable,
  sensitivity: v.sensitivity,
  expiresAt: v.expires_at,
  toolTimeoutMs: v.tool_timeout_ms,
  messageId: v.message_id,
  reason: v.reason,
});

function metaOf(change: ArtifactChange, content: ArtifactContent) {
  return {
    forwardable: change.forwardable ?? false,
    sensitivity: change.sensitivity ?? 'normal',
    ...(change.ttlMs === undefined ? {} : { ttl_ms: change.ttlMs }),
    ...(content.kind === 'tool_request' ? { tool_timeout_ms: content.tool.timeout_ms } : {}),
  };
}

/** The longest artifact title (the protocol's bound). */
const TITLE_MAX = 200;

/** One artifact this agent sent. */
export class ArtifactHandle {
  /** The artifact id. */
  readonly artifactId: string;
  /** The conversation it was sent to. */
  readonly conversationId: string;
  readonly #owner: AgentArtifacts;
  #payload: ArtifactPayload;
  #messageId: string;
  #createdAt: string;
  #outcome: ArtifactOutcome | undefined;
  readonly #waiters = new Set<(o: ArtifactOutcome) => void>();
  /** The human members the current revision was sealed for: the only ones who may answer it. */
  #approvers: ReadonlySet<string>;
  /** An update in flight: answers wait for it, so they are checked against the revision it sets. */
  #updating: Promise<unknown> | undefined;

  /** @internal Created by {@link AgentArtifacts.send}. */
  constructor(
    owner: AgentArtifacts,
    conversationId: string,
    payload: ArtifactPayload,
    messageId: string,
    createdAt: string,
    approvers: ReadonlySet<string>,
  ) {
    this.#owner = owner;
    this.artifactId = payload.artifact_id;
    this.conversationId = conversationId;
    this.#payload = payload;
    this.#messageId = messageId;
    this.#createdAt = createdAt;
    this.#approvers = approvers;
  }

  /**
   * The human members who may answer the current revision: the users it was
   * sealed for (as the key directory and the member watch knew the
   * conversation's members at that moment).
   */
  get approvers(): readonly string[] {
    return [...this.#approvers];
  }

  /** @internal Resolves once no update of this handle is in flight. */
  async settledRevision(): Promise<number> {
    while (this.#updating !== undefined) await this.#updating.catch(() => undefined);
    return this.#payload.revision;
  }

  /** @internal May `senderId` answer the current revision. */
  mayAnswer(senderId: string): boolean {
    return this.#approvers.has(senderId);
  }

  /** The revision this handle last sent (starts at 1). */
  get revision(): number {
    return this.#payload.revision;
  }

  /** The content this handle last sent. */
  get content(): ArtifactContent {
    return this.#payload.content;
  }

  /** The outcome, once known. */
  get outcome(): ArtifactOutcome | undefined {
    return this.#outcome;
  }

  /**
   * Resolves with how the artifact ended: approved (with data), denied (with
   * a typed reason) or expired (WebSocket mode).
   *
   * @throws {@link TimeoutError} when `timeoutMs` passes first (the artifact stays open).
   */
  response(options: ArtifactResponseOptions = {}): Promise<ArtifactOutcome> {
    if (this.#outcome !== undefined) return Promise.resolve(this.#outcome);
    return new Promise((resolve, reject) => {
      const clock = this.#owner.clock;
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : clock.setTimeout(() => {
              this.#waiters.delete(done);
              reject(
                new TimeoutError({
                  message: `No answer to artifact within ${options.timeoutMs} ms.`,
                  timeoutMs: options.timeoutMs!,
                }),
              );
            }, options.timeoutMs);
      const done = (o: ArtifactOutcome): void => {
        if (timer !== undefined) clock.clearTimeout(timer);
        resolve(o);
      };
      this.#waiters.add(done);
    });
  }

  /**
   * Sends a new revision based on the one this handle knows.
   *
   * @throws {@link ServiceError} `ARTIFACT_REVISION_CONFLICT` (409) when another update came first
   * (`params.current_revision`); use {@link ArtifactHandle.update} to re-read and retry.
   */
  async replace(change: ArtifactChange): Promise<number> {
    return this.#put(change, this.#payload.revision);
  }

  /**
   * Re-reads the current revision, computes the change from it and sends it;
   * after a conflict, re-reads and tries again (up to `maxAttempts` in all).
   * `fn` gets the current revision and the content this process last sent
   * (the service keeps ciphertext only).
   *
   * @throws {@link ServiceError} `ARTIFACT_REVISION_CONFLICT` when every attempt conflicted.
   */
  async update(
    fn: (current: {
      readonly revision: number;
      readonly content: ArtifactContent;
    }) => ArtifactChange | Promise<ArtifactChange>,
    options: ArtifactUpdateOptions = {},
  ): Promise<number> {
    const attempts = Math.max(1, options.maxAttempts ?? 3);
    for (let i = 1; ; i++) {
      const { revision } = await this.#owner.status(this.artifactId);
      try {
        return await this.#put(await fn({ revision, content: this.#payload.content }), revision);
      } catch (err) {
        if (!isServiceError(err, 'ARTIFACT_REVISION_CONFLICT') || i >= attempts) throw err;
      }
    }
  }

  /**
   * Withdraws a question whose answer nobody will use (the turn was stopped, the wait timed out, the
   * card was deleted): sends a last revision, a confirm titled "No longer needed: <title>" with `reason`
   * as its body, living the shortest time the service allows (1 s). The human's client shows it in
   * place of the question, an answer to the question itself is refused as stale, and the artifact
   * expires a second later. The service has no route to close an artifact (docs/artifacts.md).
   * Best effort, never throws: resolves `false` when the artifact already had its outcome or the
   * update failed.
   *
   * @example
   * ```ts
   * const outcome = await artifact.response({ timeoutMs: 60_000 }).catch(async (error) => {
   *   await artifact.withdraw('No answer came in time.');
   *   throw error;
   * });
   * ```
   */
  async withdraw(reason = 'This question no longer needs an answer.'): Promise<boolean> {
    if (this.#outcome !== undefined) return false;
    const title = `No longer needed: ${this.#payload.content.title}`;
    try {
      await this.replace({
        content: {
          kind: 'confirm',
          title: title.length <= TITLE_MAX ? title : `${title.slice(0, TITLE_MAX - 1)}…`,
          body: reason,
        },
        ttlMs: ARTIFACT_LIMITS.minTtlMs,
      });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Forwards the artifact (a read-only copy) to up to 10 conversations of the agent.
   *
   * @throws {@link ServiceError} `ARTIFACT_NOT_FORWARDABLE`, `FORWARD_TARGET_LIMIT`.
   */
  forward(targets: readonly string[]): Promise<ForwardedCopy[]> {
    return this.#owner.relay.forward(
      {
        conversationId: this.conversationId,
        messageId: this.#messageId,
        senderId: this.#owner.agentId,
        createdAt: this.#createdAt,
        payload: this.#payload,
      },
      targets,
    );
  }

  /** @internal Settles the handle (first outcome wins). */
  settle(outcome: ArtifactOutcome): void {
    if (this.#outcome !== undefined) return;
    this.#outcome = outcome;
    for (const w of this.#waiters) w(outcome);
    this.#waiters.clear();
  }

  async #put(change: ArtifactChange, basedOn: number): Promise<number> {
    const run = this.#putNow(change, basedOn);
    this.#updating = run;
    try {
      return await run;
    } finally {
      if (this.#updating === run) this.#updating = undefined;
    }
  }

  async #putNow(change: ArtifactChange, basedOn: number): Promise<number> {
    const content = parseArtifactContent(change.content);
    const payload: ArtifactPayload = {
      type: 'artifact',
      artifact_id: this.artifactId,
      revision: basedOn + 1,
      forwardable: change.forwardable ?? this.#payload.forwardable,
      sensitivity: change.sensitivity ?? this.#payload.sensitivity,
      content,
    };
    const meta = metaOf(
      { ...change, forwardable: payload.forwardable, sensitivity: payload.sensitivity },
      content,
    );
    const sender = await this.#owner.sender();
    let approvers: ReadonlySet<string> = new Set();
    const view = await sender.sealAndPost(this.conversationId, payload, {}, async (wire, _id, recipients) => {
      approvers = await this.#owner.humans(recipients);
      return this.#owner.rest().request({
        method: ARTIFACT_ROUTES.updateArtifact.method,
        path: routePath(ARTIFACT_ROUTES.updateArtifact, {
          id: this.#owner.agentId,
          artifact_id: this.artifactId,
        }),
        body: { based_on_revision: basedOn, ...meta, wire_envelope: wire },
        schema: ArtifactViewSchema,
        limiter: 'messages',
      });
    });
    this.#approvers = approvers;
    // The revision is the one sealed under this handle's signature, never the service's word.
    this.#payload = payload;
    this.#messageId = view.message_id;
    this.#createdAt = new Date(this.#owner.clock.now()).toISOString();
    return view.revision;
  }
}

/** The agent's artifacts: `agent.artifacts`. */
export class AgentArtifacts {
  readonly #d: AgentArtifactsDeps;
  readonly #open = new Map<string, ArtifactHandle>();
  /** Artifacts being sent: an answer that overtakes the service's 201 waits for the handle. */
  readonly #sending = new Map<string, Promise<unknown>>();

  /** @internal Built by the Agent. */
  constructor(deps: AgentArtifactsDeps) {
    this.#d = deps;
    deps.emitter.on('artifact_response', (e) => this.#onResponse(e));
    deps.emitter.on('artifact.expired', (e) => this.#onExpired(e));
  }

  /** @internal */
  get agentId(): string {
    return this.#d.agentId;
  }
  /** @internal */
  get clock(): Clock {
    return this.#d.clock;
  }
  /** @internal */
  get relay(): RelayActions {
    return this.#d.relay;
  }
  /** @internal */
  rest(): RestClient {
    return this.#d.rest();
  }
  /** @internal */
  sender(): Promise<MessageSender> {
    return this.#d.sender();
  }

  /** @internal The users among `ids` (peers whose kind the key directory gives as `user`). */
  async humans(ids: readonly string[]): Promise<ReadonlySet<string>> {
    const out = new Set<string>();
    for (const id of ids) {
      if (id !== this.#d.agentId && id !== SYSTEM_SENDER_ID && (await this.#d.peerKind(id)) === 'user')
        out.add(id);
    }
    return out;
  }

  /**
   * Seals the artifact to the conversation's members and sends it (revision 1).
   *
   * @throws {@link ValidationError} for content that does not fit its kind;
   * {@link ServiceError} `RELATION_REVOKED`, `CONVERSATION_FORBIDDEN`, `AGENT_RESTRICTED`, …
   * @example
   * ```ts
   * const a = await agent.artifacts.send(conversationId, {
   *   content: { kind: 'form', title: 'Ship to', fields: [{ name: 'city', label: 'City', input: 'text', required: true }] },
   * });
   * const outcome = await a.response({ timeoutMs: 120_000 });
   * ```
   */
  async send(conversationId: string, spec: ArtifactSpec): Promise<ArtifactHandle> {
    const content = parseArtifactContent(spec.content);
    const artifactId = spec.artifactId ?? globalThis.crypto.randomUUID();
    const payload: ArtifactPayload = {
      type: 'artifact',
      artifact_id: artifactId,
      revision: 1,
      forwardable: spec.forwardable ?? false,
      sensitivity: spec.sensitivity ?? 'normal',
      content,
    };
    let done: () => void = () => undefined;
    this.#sending.set(artifactId, new Promise<void>((resolve) => (done = resolve)));
    try {
      return await this.#send(conversationId, artifactId, payload, spec, content);
    } finally {
      this.#sending.delete(artifactId);
      done();
    }
  }

  async #send(
    conversationId: string,
    artifactId: string,
    payload: ArtifactPayload,
    spec: ArtifactSpec,
    content: ArtifactContent,
  ): Promise<ArtifactHandle> {
    const sender = await this.#d.sender();
    const createdAt = new Date(this.#d.clock.now()).toISOString();
    let approvers: ReadonlySet<string> = new Set();
    const view = await sender.sealAndPost(conversationId, payload, {}, async (wire, _id, recipients) => {
      // Known before the post, so the handle exists as soon as the service answers.
      approvers = await this.humans(recipients);
      return this.#d.rest().request({
        method: ARTIFACT_ROUTES.createArtifact.method,
        path: routePath(ARTIFACT_ROUTES.createArtifact, { id: this.#d.agentId }),
        body: {
          conversation_id: conversationId,
          artifact_id: artifactId,
          ...metaOf(spec, content),
          wire_envelope: wire,
        },
        schema: ArtifactViewSchema,
        limiter: 'messages',
      });
    });
    const handle = new ArtifactHandle(this, conversationId, payload, view.message_id, createdAt, approvers);
    this.#remember(handle);
    return handle;
  }

  #remember(handle: ArtifactHandle): void {
    this.#open.delete(handle.artifactId);
    if (this.#open.size >= MAX_HANDLES) this.#open.delete(this.#open.keys().next().value!);
    this.#open.set(handle.artifactId, handle);
  }

  /**
   * @internal Checks an `artifact_response` before any handler sees it
   * (called by the pipeline, on both transports). For an artifact this
   * process sent: the answer must be for the current revision, signed (v1.1)
   * as an `artifact_response` by a human the revision was sealed for, or by
   * `system` with a service reason. For an artifact of another process (or
   * before a restart): by a human member of the conversation as the key
   * directory lists it, or by `system` with a service reason.
   */
  async vetResponse(
    e: ArtifactResponseEvent,
    opened: Pick<OpenedEnvelope, 'eventType'>,
  ): Promise<VetRefusal | undefined> {
    const parsed = ArtifactAnswerPayloadSchema.safeParse(e.payload);
    if (!parsed.success) return { reason: 'mismatch', subject: undefined };
    const p = parsed.data;
    const refuse = (reason: DecisionRefusalReason): VetRefusal => ({ reason, subject: p.artifact_id });
    if (opened.eventType !== 'artifact_response') return refuse('legacy_envelope');
    const bySystem = e.senderId === SYSTEM_SENDER_ID;
    if (bySystem) {
      if (p.status !== 'denied' || !(SERVICE_DENIED_REASONS as readonly string[]).includes(p.reason))
        return refuse('sender_not_allowed');
    } else if (p.status === 'denied' && !(HUMAN_DENIED_REASONS as readonly string[]).includes(p.reason)) {
      return refuse('sender_not_allowed');
    }
    await this.#sending.get(p.artifact_id);
    const handle = this.#open.get(p.artifact_id);
    if (handle === undefined) {
      if (bySystem) return undefined;
      const members = await this.#d.members(e.conversationId);
      if (!members.includes(e.senderId) || !(await this.humans([e.senderId])).has(e.senderId))
        return refuse('not_a_member');
      return undefined;
    }
    if (handle.conversationId !== e.conversationId) return refuse('mismatch');
    if (p.revision !== (await handle.settledRevision())) return refuse('stale_revision');
    if (!bySystem && !handle.mayAnswer(e.senderId)) return refuse('not_a_member');
    return undefined;
  }

  /**
   * The artifact's current state at the service (revision, state, outcome reason).
   *
   * @throws {@link ServiceError} `NOT_FOUND` for an artifact of another agent or none.
   */
  async status(artifactId: string): Promise<ArtifactStatus> {
    const view = await this.#d.rest().request({
      method: ARTIFACT_ROUTES.getArtifact.method,
      path: routePath(ARTIFACT_ROUTES.getArtifact, { id: this.#d.agentId, artifact_id: artifactId }),
      schema: ArtifactViewSchema,
    });
    return statusOf(view);
  }

  /** The handle of an artifact this process sent and that is still awaiting its outcome. */
  handle(artifactId: string): ArtifactHandle | undefined {
    const h = this.#open.get(artifactId);
    return h?.outcome === undefined ? h : undefined;
  }

  #onResponse(e: ArtifactResponseEvent): void {
    // The pipeline has vetted the answer (vetResponse): sender, revision, reason.
    const parsed = ArtifactAnswerPayloadSchema.safeParse(e.payload);
    if (!parsed.success) return;
    const p = parsed.data;
    const handle = this.#open.get(p.artifact_id);
    if (
      handle === undefined ||
      handle.outcome !== undefined ||
      handle.conversationId !== e.conversationId ||
      e.senderId === this.#d.agentId
    )
      return;
    const bySystem = e.senderId === SYSTEM_SENDER_ID;
    if (p.status === 'denied') {
      const allowed: readonly string[] = bySystem ? SERVICE_DENIED_REASONS : HUMAN_DENIED_REASONS;
      if (!allowed.includes(p.reason)) {
        this.#d.logger.warn('ignored an artifact answer whose reason does not fit its sender', {
          reason: p.reason,
        });
        return;
      }
      this.#finish(handle, {
        status: 'denied',
        artifactId: p.artifact_id,
        revision: p.revision,
        reason: p.reason,
        by: bySystem ? 'service' : 'user',
        event: e,
      });
      return;
    }
    if (bySystem) return;
    this.#finish(handle, {
      status: 'approved',
      artifactId: p.artifact_id,
      revision: p.revision,
      data: p.data,
      event: e,
    });
  }

  #onExpired(e: ArtifactExpiredEvent): void {
    const handle = this.#open.get(e.artifactId);
    if (handle === undefined || handle.outcome !== undefined || e.senderId !== SYSTEM_SENDER_ID) return;
    this.#finish(handle, { status: 'expired', artifactId: e.artifactId, revision: e.revision, event: e });
  }

  #finish(handle: ArtifactHandle, outcome: ArtifactOutcome): void {
    // Kept (bounded) after its outcome, so a later answer is still checked against it.
    handle.settle(outcome);
  }
}
