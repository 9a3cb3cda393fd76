/**
 * Checking an `ack` frame, for agents and users alike (gap decision 12,
 * docs/websocket.md; users: docs/user-client.md).
 *
 * @module
 */
import { ACK_FRAME_MAX_IDS } from 'agent-messaging-sdk/protocol';
import type { HubConnection } from './connection.js';
import { errorFrame } from './frames.js';
import type { ClientFrame } from './hub.js';

const DELIVERY_ID = /^[0-9A-Za-z-]{1,64}$/;

/**
 * The delivery ids of `{ type: 'ack', delivery_ids: [...] }`, or undefined
 * after answering with an `error` frame (`VALIDATION_ERROR`): on a
 * connection that did not negotiate acks (`ack_not_negotiated`), or for a
 * malformed frame (`invalid_frame`, 1 to 1000 ids). Nothing is acknowledged then.
 */
export function ackIdsOf(frame: ClientFrame, conn: HubConnection): readonly string[] | undefined {
  if (conn.principal === undefined || conn.negotiated['ack'] === undefined) {
    conn.send(
      errorFrame('VALIDATION_ERROR', 'Acknowledgements were not negotiated.', {
        reason: 'ack_not_negotiated',
      }),
    );
    return undefined;
  }
  const ids = frame['delivery_ids'];
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.length > ACK_FRAME_MAX_IDS ||
    !ids.every((id): id is string => typeof id === 'string' && DELIVERY_ID.test(id))
  ) {
    conn.send(
      errorFrame('VALIDATION_ERROR', 'delivery_ids must be 1 to 1000 delivery ids.', {
        reason: 'invalid_frame',
        min: 1,
        max: ACK_FRAME_MAX_IDS,
      }),
    );
    return undefined;
  }
  return ids;
}
