/**
 * The agent's stream frames on the WebSocket hub (`stream.start`,
 * `stream.delta`, `stream.end`, `stream.abort`), handed to the
 * {@link StreamRelay}. A frame from a user connection, a malformed frame or
 * one for an unknown stream gets an `error` frame; a frame for a stream the
 * service already ended gets `stream.error` with the same value again.
 *
 * @module
 */
import { STREAM_FRAMES } from 'agent-messaging-sdk/protocol';
import { parseAgentStreamFrame, type AgentStreamFrame } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import type { HubConnection } from '../ws/connection.js';
import { errorFrame } from '../ws/frames.js';
import type { ClientFrame } from '../ws/hub.js';
import { streamErrorFrame, streamRelayOf, type RelayOutcome, type StreamRelay } from './relay.js';

function answerRefusal(conn: HubConnection, streamId: string, outcome: RelayOutcome): void {
  if (outcome.ok) return;
  const r = outcome.refusal;
  if (r.kind === 'stream_error') {
    if (r.reported !== true) conn.send(streamErrorFrame(streamId, r.reason));
  } else if (r.kind === 'unknown_stream')
    conn.send(
      errorFrame('NOT_FOUND', 'No open stream with this id.', {
        reason: 'unknown_stream',
        stream_id: streamId,
      }),
    );
  else if (r.kind === 'duplicate_stream')
    conn.send(
      errorFrame('VALIDATION_ERROR', 'This stream id was used before.', {
        reason: 'duplicate_stream',
        stream_id: streamId,
      }),
    );
  else
    conn.send(
      errorFrame(r.code, 'The agent may not stream into this conversation.', { stream_id: streamId }),
    );
}

function handle(
  relay: StreamRelay,
  frame: AgentStreamFrame,
  conn: HubConnection,
  agentId: string,
): void | Promise<void> {
  const id = frame.stream_id;
  switch (frame.type) {
    case STREAM_FRAMES.start:
      return relay
        .start(agentId, frame.conversation_id, id, frame.wire_envelope, 'websocket')
        .then((outcome) => answerRefusal(conn, id, outcome));
    case STREAM_FRAMES.delta:
      return relay.whenStarted(id, () =>
        answerRefusal(conn, id, relay.delta(agentId, id, frame.seq, frame.ciphertext)),
      );
    case STREAM_FRAMES.end:
      return relay.whenStarted(id, () => answerRefusal(conn, id, relay.end(agentId, id, frame)));
    case STREAM_FRAMES.abort:
      return relay.whenStarted(id, () => answerRefusal(conn, id, relay.abort(agentId, id, frame.ciphertext)));
  }
}

/** Registers the four agent stream frames on the hub. */
export function registerStreamFrames(ctx: ServerContext): void {
  const relay = streamRelayOf(ctx);
  const onFrame = (raw: ClientFrame, conn: HubConnection): void | Promise<void> => {
    const principal = conn.principal;
    if (principal?.kind !== 'agent') {
      conn.send(errorFrame('FORBIDDEN', 'Only agents stream replies.', { reason: 'agents_only' }));
      return;
    }
    const frame = parseAgentStreamFrame(raw);
    if (frame === undefined) {
      conn.send(
        errorFrame('VALIDATION_ERROR', 'Malformed stream frame.', {
          reason: 'invalid_frame',
          type: raw.type,
        }),
      );
      return;
    }
    return handle(relay, frame, conn, principal.agentId);
  };
  for (const type of [STREAM_FRAMES.start, STREAM_FRAMES.delta, STREAM_FRAMES.end, STREAM_FRAMES.abort])
    ctx.hub.handle(type, onFrame);
}
