/**
 * Streams of webhook-mode agents over REST (paths in `STREAM_ROUTES`): start,
 * append a batch of sealed deltas, end, abort. Each answer is `{ data: {
 * stream_id, … } }`; a stream the service ended answers with the catalogue
 * code of its stream error value and `params.reason` (`STREAM_TIMEOUT` 408
 * for `stream_timeout` and `orphan_detected`, `NOT_FOUND` 404 for
 * `client_offline`, `RELATION_REVOKED` 403 for `peer_revoked`,
 * `RATE_LIMITED` 429 for `rate_limited`).
 *
 * @module
 */
import { STREAM_ROUTES, type ServiceRoute } from 'agent-messaging-sdk/protocol';
import {
  STREAM_ERROR_CODES,
  StreamAbortBodySchema,
  StreamDeltaBatchSchema,
  StreamEndBodySchema,
  StreamIdSchema,
  StreamStartBodySchema,
} from 'agent-messaging-sdk/protocol';
import { fail, invalidRequest } from '../http/failure.js';
import { ok } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import { streamRelayOf, type RelayOutcome } from './relay.js';

type RestMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
const at = (r: ServiceRoute) => ({ method: r.method as RestMethod, path: r.path });

function streamIdOf(params: Readonly<Record<string, string>>): string {
  const parsed = StreamIdSchema.safeParse(params['stream_id']);
  if (!parsed.success) throw invalidRequest('invalid_stream_id', 'The stream id is malformed.');
  return parsed.data;
}

function throwRefusal(streamId: string, outcome: RelayOutcome): void {
  if (outcome.ok) return;
  const r = outcome.refusal;
  switch (r.kind) {
    case 'stream_error':
      throw fail(STREAM_ERROR_CODES[r.reason], `The stream ended: ${r.reason}.`, {
        reason: r.reason,
        stream_id: streamId,
      });
    case 'unknown_stream':
      throw fail('NOT_FOUND', 'No open stream with this id.', {
        reason: 'unknown_stream',
        stream_id: streamId,
      });
    case 'duplicate_stream':
      throw fail('VALIDATION_ERROR', 'This stream id was used before.', {
        reason: 'duplicate_stream',
        stream_id: streamId,
      });
    case 'conversation':
      throw fail(r.code, 'The agent may not stream into this conversation.');
  }
}

const start = defineRoute({
  ...at(STREAM_ROUTES.streamStart),
  auth: 'agent',
  body: StreamStartBodySchema,
  async handler({ ctx, principal, params, body }) {
    const relay = streamRelayOf(ctx);
    const outcome = await relay.start(
      principal.agentId,
      params['id']!,
      body.stream_id,
      body.wire_envelope,
      'rest',
    );
    throwRefusal(body.stream_id, outcome);
    return ok({ stream_id: body.stream_id }, 201);
  },
});

const deltas = defineRoute({
  ...at(STREAM_ROUTES.streamDeltas),
  auth: 'agent',
  body: StreamDeltaBatchSchema,
  handler({ ctx, principal, params, body }) {
    const id = streamIdOf(params);
    const relay = streamRelayOf(ctx);
    for (const d of body.deltas) throwRefusal(id, relay.delta(principal.agentId, id, d.seq, d.ciphertext));
    return ok({ stream_id: id, accepted: body.deltas.length });
  },
});

const end = defineRoute({
  ...at(STREAM_ROUTES.streamEnd),
  auth: 'agent',
  body: StreamEndBodySchema,
  handler({ ctx, principal, params, body }) {
    const id = streamIdOf(params);
    throwRefusal(id, streamRelayOf(ctx).end(principal.agentId, id, body));
    return ok({ stream_id: id });
  },
});

const abort = defineRoute({
  ...at(STREAM_ROUTES.streamAbort),
  auth: 'agent',
  body: StreamAbortBodySchema,
  handler({ ctx, principal, params, body }) {
    const id = streamIdOf(params);
    throwRefusal(id, streamRelayOf(ctx).abort(principal.agentId, id, body.ciphertext));
    return ok({ stream_id: id });
  },
});

/** Stream routes (webhook-mode agents). */
export const streamRoutes: readonly Route[] = [start, deltas, end, abort];
