/**
 * The reference server's stream relay: it keeps the open streams, relays
 * their frames (ciphertext only) to the devices that were connected when the
 * stream started (the user's in a one-to-one conversation, every human
 * member's in a group), and ends a stream with a stream error value:
 *
 * | Value | When |
 * |---|---|
 * | `stream_timeout` | 5 minutes after the start without the end (server clock) |
 * | `orphan_detected` | 30 s without a delta (server clock) |
 * | `client_offline` | no device of the user (in a group: of any human member) is connected at the start, or none is left at a later frame |
 * | `peer_revoked` | the relation is revoked (or suspended) during the stream, or is not established at the start; in a group, the agent leaves or is removed |
 * | `rate_limited` | the agent already has 8 open streams |
 *
 * The error goes to the agent (`stream.error` on its WebSocket; the answer
 * to its next REST call) and to the user's devices. The relay never checks
 * or reorders sequence numbers: integrity is end to end (the human side
 * verifies every delta and the signed end).
 *
 * @module
 */
import type { TimerHandle } from 'agent-messaging-sdk/protocol';
import type { StreamErrorValue } from 'agent-messaging-sdk/protocol';
import { STREAM_LIMITS } from 'agent-messaging-sdk/protocol';
import { STREAM_FRAMES } from 'agent-messaging-sdk/protocol';
import { STREAM_ERROR_CODES } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import type { HubConnection } from '../ws/connection.js';

/** Why a stream operation was refused: a stream error value, or the stream is unknown / not the agent's. */
export type StreamRefusal =
  | {
      readonly kind: 'stream_error';
      readonly reason: StreamErrorValue;
      /** The error went to the agent's WebSocket already (do not send it twice). */
      readonly reported?: boolean;
    }
  | { readonly kind: 'unknown_stream' }
  | { readonly kind: 'conversation'; readonly code: 'CONVERSATION_FORBIDDEN' | 'CONVERSATION_NOT_FOUND' }
  | { readonly kind: 'duplicate_stream' };

/** Outcome of a relay operation. */
export type RelayOutcome = { readonly ok: true } | { readonly ok: false; readonly refusal: StreamRefusal };

/** Where the stream's agent speaks from: its WebSocket, or REST (webhook mode). */
export type StreamOrigin = 'websocket' | 'rest';

interface LiveStream {
  readonly id: string;
  readonly agentId: string;
  readonly conversationId: string;
  readonly origin: StreamOrigin;
  targets: readonly HubConnection[];
  readonly startedAtMs: number;
  lastDeltaAtMs: number;
  totalTimer: TimerHandle | undefined;
  idleTimer: TimerHandle | undefined;
}

const OK: RelayOutcome = Object.freeze({ ok: true });
const ENDED_MEMORY = 10_000;

function refused(refusal: StreamRefusal): RelayOutcome {
  return { ok: false, refusal };
}

/** The frame that tells the agent and the user's devices the service ended a stream. */
export function streamErrorFrame(
  streamId: string,
  reason: StreamErrorValue,
): { readonly type: string; readonly [field: string]: unknown } {
  return { type: STREAM_FRAMES.error, stream_id: streamId, reason, code: STREAM_ERROR_CODES[reason] };
}

/** Open streams of one server. */
export class StreamRelay {
  readonly #ctx: ServerContext;
  readonly #live = new Map<string, LiveStream>();
  /** Streams starting (conversation lookup in flight): frames that arrive meanwhile wait here. */
  readonly #starting = new Map<string, { agentId: string; queued: (() => void)[] }>();
  /** Streams the service ended, with why (later frames get the same answer). */
  readonly #ended = new Map<string, { agentId: string; reason: StreamErrorValue }>();

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  /** Open streams (all agents). */
  get openCount(): number {
    return this.#live.size;
  }

  /** Open streams of `agentId`. */
  openOf(agentId: string): number {
    let n = 0;
    for (const s of this.#live.values()) if (s.agentId === agentId) n += 1;
    for (const s of this.#starting.values()) if (s.agentId === agentId) n += 1;
    return n;
  }

  /**
   * Starts a stream: checks membership, the relation, the agent's open
   * streams and the user's connected devices, then relays `stream.start`.
   */
  async start(
    agentId: string,
    conversationId: string,
    streamId: string,
    wireEnvelope: string,
    origin: StreamOrigin,
  ): Promise<RelayOutcome> {
    if (this.#live.has(streamId) || this.#starting.has(streamId) || this.#ended.has(streamId))
      return refused({ kind: 'duplicate_stream' });
    if (this.openOf(agentId) >= STREAM_LIMITS.MAX_CONCURRENT_PER_AGENT)
      return this.#refuseStart(agentId, streamId, 'rate_limited');
    const pending = { agentId, queued: [] as (() => void)[] };
    this.#starting.set(streamId, pending);
    try {
      const audience = await this.#audience(agentId, conversationId);
      if (audience.kind === 'refused') return refused(audience.refusal);
      if (audience.kind === 'revoked') return this.#refuseStart(agentId, streamId, 'peer_revoked');
      const targets = audience.userIds.flatMap((u) => this.#userConnections(u));
      if (targets.length === 0) return this.#refuseStart(agentId, streamId, 'client_offline');
      const now = this.#ctx.clock.now();
      const stream: LiveStream = {
        id: streamId,
        agentId,
        conversationId,
        origin,
        targets,
        startedAtMs: now,
        lastDeltaAtMs: now,
        totalTimer: undefined,
        idleTimer: undefined,
      };
      this.#live.set(streamId, stream);
      stream.totalTimer = this.#ctx.clock.setTimeout(
        () => this.#terminate(stream, 'stream_timeout'),
        STREAM_LIMITS.TOTAL_MS,
        { background: true },
      );
      this.#armIdle(stream, STREAM_LIMITS.IDLE_MS);
      const frame = JSON.stringify({
        type: STREAM_FRAMES.start,
        stream_id: streamId,
        conversation_id: conversationId,
        sender_id: agentId,
        wire_envelope: wireEnvelope,
      });
      for (const conn of targets) conn.sendText(frame);
      if (origin === 'websocket')
        this.#ctx.agentSockets.send(agentId, { type: STREAM_FRAMES.accepted, stream_id: streamId });
      return OK;
    } finally {
      this.#starting.delete(streamId);
      for (const run of pending.queued) run();
    }
  }

  /** Runs `op` now, or after the start of `streamId` when it is still being checked. */
  whenStarted(streamId: string, op: () => void): void {
    const pending = this.#starting.get(streamId);
    if (pending === undefined || pending.queued.length >= STREAM_LIMITS.MAX_BATCH_DELTAS) op();
    else pending.queued.push(op);
  }

  /** Relays one sealed delta. */
  delta(agentId: string, streamId: string, seq: number, ciphertext: string): RelayOutcome {
    const stream = this.#own(agentId, streamId);
    if (!stream.ok) return stream.outcome;
    const s = stream.stream;
    s.lastDeltaAtMs = this.#ctx.clock.now();
    const frame = `{"type":"${STREAM_FRAMES.delta}","stream_id":"${streamId}","seq":${seq},"ciphertext":"${ciphertext}"}`;
    return this.#relay(s, frame);
  }

  /** Relays the end and closes the stream. */
  end(
    agentId: string,
    streamId: string,
    body: { final_seq: number; transcript_hash: string; signature: string },
  ): RelayOutcome {
    const stream = this.#own(agentId, streamId);
    if (!stream.ok) return stream.outcome;
    const outcome = this.#relay(
      stream.stream,
      JSON.stringify({ type: STREAM_FRAMES.end, stream_id: streamId, ...body }),
    );
    if (!outcome.ok) return outcome;
    this.#close(stream.stream);
    if (stream.stream.origin === 'websocket')
      this.#ctx.agentSockets.send(agentId, { type: STREAM_FRAMES.closed, stream_id: streamId });
    return OK;
  }

  /** Relays the sender's abort and closes the stream. */
  abort(agentId: string, streamId: string, ciphertext: string): RelayOutcome {
    const stream = this.#own(agentId, streamId);
    if (!stream.ok) return stream.outcome;
    const frame = JSON.stringify({ type: STREAM_FRAMES.abort, stream_id: streamId, ciphertext });
    for (const conn of stream.stream.targets) conn.sendText(frame);
    this.#close(stream.stream);
    if (stream.stream.origin === 'websocket')
      this.#ctx.agentSockets.send(agentId, { type: STREAM_FRAMES.closed, stream_id: streamId });
    return OK;
  }

  /** The relation of `conversationId` changed away from established: its streams end with `peer_revoked`. */
  relationChanged(conversationId: string): void {
    for (const s of [...this.#live.values()])
      if (s.conversationId === conversationId) this.#terminate(s, 'peer_revoked');
  }

  /**
   * `memberId` left a group (or was removed): its own streams there end with
   * `peer_revoked`; a human's devices get no further frame of the others.
   */
  memberLeft(conversationId: string, memberId: string): void {
    for (const s of [...this.#live.values()]) {
      if (s.conversationId !== conversationId) continue;
      if (s.agentId === memberId) this.#terminate(s, 'peer_revoked');
      else
        s.targets = s.targets.filter(
          (c) => !(c.principal?.kind === 'user' && c.principal.userId === memberId),
        );
    }
  }

  /** Ends every stream (server shutdown). */
  closeAll(): void {
    for (const s of [...this.#live.values()]) this.#close(s);
  }

  #own(
    agentId: string,
    streamId: string,
  ): { ok: true; stream: LiveStream } | { ok: false; outcome: RelayOutcome } {
    const s = this.#live.get(streamId);
    if (s !== undefined && s.agentId === agentId) return { ok: true, stream: s };
    const ended = this.#ended.get(streamId);
    if (ended !== undefined && ended.agentId === agentId)
      return { ok: false, outcome: refused({ kind: 'stream_error', reason: ended.reason }) };
    return { ok: false, outcome: refused({ kind: 'unknown_stream' }) };
  }

  #relay(s: LiveStream, frame: string): RelayOutcome {
    let sent = false;
    for (const conn of s.targets) sent = conn.sendText(frame) || sent;
    if (sent) return OK;
    this.#terminate(s, 'client_offline');
    return refused({ kind: 'stream_error', reason: 'client_offline', reported: s.origin === 'websocket' });
  }

  /**
   * The human members a stream of `agentId` in `conversationId` goes to: the
   * user of a one-to-one conversation, every user member of a group the agent
   * is in.
   */
  async #audience(
    agentId: string,
    conversationId: string,
  ): Promise<
    | { kind: 'members'; userIds: readonly string[] }
    | { kind: 'revoked' }
    | { kind: 'refused'; refusal: StreamRefusal }
  > {
    const group = await this.#ctx.store.groups.get(conversationId);
    if (group !== undefined) {
      if (!group.members.some((m) => m.id === agentId))
        return { kind: 'refused', refusal: { kind: 'conversation', code: 'CONVERSATION_FORBIDDEN' } };
      return { kind: 'members', userIds: group.members.filter((m) => m.kind === 'user').map((m) => m.id) };
    }
    const c = await this.#ctx.store.conversations.get(conversationId);
    if (c === undefined)
      return { kind: 'refused', refusal: { kind: 'conversation', code: 'CONVERSATION_NOT_FOUND' } };
    if (c.agentId !== agentId)
      return { kind: 'refused', refusal: { kind: 'conversation', code: 'CONVERSATION_FORBIDDEN' } };
    if (c.state !== 'established') return { kind: 'revoked' };
    return { kind: 'members', userIds: [c.userId] };
  }

  #userConnections(userId: string): HubConnection[] {
    return this.#ctx.hub.connections(
      (c) => c.state === 'open' && c.principal?.kind === 'user' && c.principal.userId === userId,
    );
  }

  #refuseStart(agentId: string, streamId: string, reason: StreamErrorValue): RelayOutcome {
    this.#remember(streamId, agentId, reason);
    return refused({ kind: 'stream_error', reason });
  }

  #armIdle(s: LiveStream, delayMs: number): void {
    s.idleTimer = this.#ctx.clock.setTimeout(
      () => {
        // One timer per stream, not one per delta: on firing, it re-arms for what is left.
        const quiet = this.#ctx.clock.now() - s.lastDeltaAtMs;
        if (quiet >= STREAM_LIMITS.IDLE_MS) this.#terminate(s, 'orphan_detected');
        else this.#armIdle(s, STREAM_LIMITS.IDLE_MS - quiet);
      },
      delayMs,
      { background: true },
    );
  }

  #terminate(s: LiveStream, reason: StreamErrorValue): void {
    if (this.#live.get(s.id) !== s) return;
    this.#close(s);
    this.#remember(s.id, s.agentId, reason);
    const frame = streamErrorFrame(s.id, reason);
    const text = JSON.stringify(frame);
    for (const conn of s.targets) conn.sendText(text);
    if (s.origin === 'websocket') this.#ctx.agentSockets.send(s.agentId, frame);
  }

  #close(s: LiveStream): void {
    this.#live.delete(s.id);
    if (s.totalTimer !== undefined) this.#ctx.clock.clearTimeout(s.totalTimer);
    if (s.idleTimer !== undefined) this.#ctx.clock.clearTimeout(s.idleTimer);
  }

  #remember(streamId: string, agentId: string, reason: StreamErrorValue): void {
    this.#ended.set(streamId, { agentId, reason });
    if (this.#ended.size > ENDED_MEMORY) {
      const oldest = this.#ended.keys().next().value;
      if (oldest !== undefined) this.#ended.delete(oldest);
    }
  }
}

const relays = new WeakMap<ServerContext, StreamRelay>();

/** The stream relay of a server (created on first use). */
export function streamRelayOf(ctx: ServerContext): StreamRelay {
  let relay = relays.get(ctx);
  if (relay === undefined) {
    relay = new StreamRelay(ctx);
    relays.set(ctx, relay);
  }
  return relay;
}

/** The relay of a server if one was created (for hooks that must not create it). */
export function existingStreamRelay(ctx: ServerContext): StreamRelay | undefined {
  return relays.get(ctx);
}
