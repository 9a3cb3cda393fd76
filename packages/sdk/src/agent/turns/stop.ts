/**
 * A human's stop request (`turn.stop`, sealed and signed inside the
 * envelope): aborts the conversation's running turns, raises `turnStopped`,
 * and answers `turn.stopped` to the conversation so the human sees it.
 *
 * The pipeline calls it around the conversation's queue (it never waits
 * behind the turn it stops). The sender and conversation come from the
 * signed envelope; only a human (a `user` key in the directory) may stop a
 * turn, never another agent of a group, and only the turns that answer
 * that human's own messages.
 *
 * @module
 */
import type { Logger } from '../../core/logger.js';
import { TURN_STOPPED_TYPE, type TurnStopPayload } from '../../core/protocol/turn-control.js';
import type { IncomingMessage, TurnStoppedEvent } from '../events.js';

export type { TurnStoppedEvent };
import type { TurnRegistry } from './registry.js';

/** What {@link handleStop} needs. */
export interface StopDeps {
  readonly registry: TurnRegistry;
  readonly logger: Logger;
  /** The kind of a principal (`user`, `agent`), undefined when unknown. */
  peerKind(id: string): Promise<string | undefined>;
  /** Sends the answer into the conversation. */
  send(conversationId: string, payload: { type: string; [field: string]: unknown }): Promise<unknown>;
  /** Raises `turnStopped`. */
  emit(event: TurnStoppedEvent): void;
}

/** Handles one verified stop request. Never throws. */
export async function handleStop(
  message: IncomingMessage,
  stop: TurnStopPayload,
  deps: StopDeps,
): Promise<void> {
  const { conversationId, senderId } = message;
  const kind = await deps.peerKind(senderId).catch(() => undefined);
  if (kind !== 'user') {
    deps.logger.warn('a stop request not from a human was ignored', { conversationId, senderId });
    return;
  }
  // Only turns answering this human's own (signed) messages: a principal the service
  // mints into the conversation, or another member of a group, cannot stop them.
  const turns = deps.registry.abort(conversationId, 'stopped', (t) =>
    t.messages.some((m) => m.senderId === senderId),
  );
  deps.logger.info('turn stopped', { conversationId, turns });
  deps.emit({ conversationId, stoppedBy: senderId, stopId: stop.stop_id, turns });
  try {
    await deps.send(conversationId, { type: TURN_STOPPED_TYPE, stop_id: stop.stop_id, stopped: turns });
  } catch (error) {
    deps.logger.warn('the answer to a stop request could not be sent', {
      conversationId,
      error: (error as Error)?.name,
    });
  }
}
