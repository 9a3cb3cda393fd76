/**
 * The reference server's artifact records: routing metadata only (the
 * content is sealed in the artifact's messages), one record per artifact,
 * with the timers of its windows (high-sensitivity answer, tool timeout,
 * expiry) on the server's clock.
 *
 * Records live in memory next to the server context (one registry per
 * context); read-then-write steps are synchronous, so concurrent requests
 * cannot both pass a revision check.
 *
 * @module
 */
import type { TimerHandle } from 'agent-messaging-sdk/protocol';
import type { ArtifactDeniedReason } from 'agent-messaging-sdk/protocol';
import type { ArtifactSensitivity, ArtifactState } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';

/** One artifact at the service. */
export interface ArtifactRecord {
  readonly artifactId: string;
  readonly conversationId: string;
  readonly agentId: string;
  revision: number;
  state: ArtifactState;
  forwardable: boolean;
  sensitivity: ArtifactSensitivity;
  expiresAtMs: number;
  /** Set exactly for a `tool_request`. */
  toolTimeoutMs: number | undefined;
  /** When the current revision was accepted (the windows count from it). */
  revisedAtMs: number;
  /** Message id of the current revision. */
  messageId: string;
  /** Why it was denied, once denied. */
  reason: ArtifactDeniedReason | undefined;
  /** Timers of the open artifact, by window. */
  readonly timers: Map<'user_timeout' | 'tool_timeout' | 'expiry', TimerHandle>;
}

/** Artifact records of one server, by id and by the message id of any revision. */
export class ArtifactRegistry {
  readonly #byId = new Map<string, ArtifactRecord>();
  readonly #byMessage = new Map<string, string>();

  /** The record, if any. */
  get(artifactId: string): ArtifactRecord | undefined {
    return this.#byId.get(artifactId);
  }

  /** The artifact a message (any of its revisions) belongs to, if any. */
  byMessage(messageId: string): ArtifactRecord | undefined {
    const id = this.#byMessage.get(messageId);
    return id === undefined ? undefined : this.#byId.get(id);
  }

  /** Adds a new record. */
  add(record: ArtifactRecord): void {
    this.#byId.set(record.artifactId, record);
    this.#byMessage.set(record.messageId, record.artifactId);
  }

  /** Links another revision's message to its artifact. */
  linkMessage(record: ArtifactRecord, messageId: string): void {
    this.#byMessage.set(messageId, record.artifactId);
  }

  /** Open artifacts of a conversation. */
  openIn(conversationId: string): ArtifactRecord[] {
    return [...this.#byId.values()].filter((r) => r.conversationId === conversationId && r.state === 'open');
  }
}

const REGISTRIES = new WeakMap<ServerContext, ArtifactRegistry>();

/** The registry of a server context (created on first use). */
export function artifactsOf(ctx: ServerContext): ArtifactRegistry {
  let r = REGISTRIES.get(ctx);
  if (r === undefined) {
    r = new ArtifactRegistry();
    REGISTRIES.set(ctx, r);
  }
  return r;
}

/** Wire view of a record (what the service knows: never content). */
export function artifactView(r: ArtifactRecord) {
  return {
    artifact_id: r.artifactId,
    conversation_id: r.conversationId,
    revision: r.revision,
    state: r.state,
    forwardable: r.forwardable,
    sensitivity: r.sensitivity,
    expires_at: new Date(r.expiresAtMs).toISOString(),
    tool_timeout_ms: r.toolTimeoutMs ?? null,
    message_id: r.messageId,
    reason: r.reason ?? null,
  };
}
