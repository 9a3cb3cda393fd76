/**
 * WebSocket mode: the dispatcher (one authenticated socket, jittered
 * reconnects, fatal close codes, heartbeat) feeding the event pipeline, and
 * its lifecycle events turned into the Agent's notifications. Flow control
 * counts every event from ingest until the pipeline is done with it and
 * pauses the socket's reading above the high-water mark. Each event is
 * acknowledged (when the service offers acks) once it is handled, or known to
 * need no handling; an event left unhandled is not, so the service sends it again.
 *
 * @module
 */
import type { AmsError } from '../core/errors/base.js';
import type { Logger } from '../core/logger.js';
import { createWsDispatcher, type WsDispatcher } from '../transport/ws/dispatcher.js';
import type { FatalInfo } from '../transport/ws/events.js';
import type { TypedEmitter } from './emitter.js';
import type { AgentListenerArgs } from './events.js';
import type { ResolvedAgentOptions } from './options.js';
import { FlowControl } from './pipeline/flow-control.js';
import { inboundOfFrame, looksLikeEvent, parseUnknownEventFrame } from './pipeline/frames.js';
import { isSettled, type EventPipeline } from './pipeline/pipeline.js';
import type { InboundEvent } from './pipeline/types.js';
import {
  isStreamFrameType,
  parseServiceStreamFrame,
  type ServiceStreamFrame,
} from '../core/protocol/stream-frames.js';

/** Bytes counted per frame besides its inline envelope (ids, metadata, JSON). */
export const FRAME_OVERHEAD_BYTES = 512;

/** The WebSocket side of an Agent. */
export interface WebSocketSide {
  readonly dispatcher: WsDispatcher;
  readonly flow: FlowControl;
}

/** What the WebSocket side needs from the Agent. */
export interface WebSocketSideOptions {
  readonly options: ResolvedAgentOptions;
  readonly pipeline: EventPipeline;
  readonly emitter: TypedEmitter<AgentListenerArgs>;
  readonly logger: Logger;
  /** The current agent token (asked again for every connection attempt). */
  readonly token: () => string;
  /** True once the agent is closing: events that still arrive are left unacknowledged. */
  readonly closing: () => boolean;
  /** Called once when the dispatcher stops for good. */
  readonly onFatal: (error: AmsError, info: FatalInfo) => void;
  /** The agent's streams: service frames about them, and the end of each connection. */
  readonly streams?: { receive(frame: ServiceStreamFrame): boolean; socketClosed(): void };
}

/**
 * Creates the dispatcher and wires it to the pipeline and the emitter.
 *
 * @throws {@link ConfigurationError} for a bad WebSocket option.
 */
export function createWebSocketSide(o: WebSocketSideOptions): WebSocketSide {
  const src = o.options.source;
  const ws = createWsDispatcher({
    url: o.options.webSocketUrl,
    agentId: o.options.agentId,
    credentials: o.token,
    clock: o.options.clock,
    logger: o.logger,
    ...(src.WebSocket === undefined ? {} : { WebSocket: src.WebSocket }),
    ...(src.reconnect === undefined ? {} : { backoff: src.reconnect }),
    ...(src.heartbeat === undefined ? {} : { heartbeat: src.heartbeat }),
    ...(src.random === undefined ? {} : { random: src.random }),
    ...src.webSocketTimeouts,
    ...(src.acks === undefined ? {} : { acks: src.acks }),
    share: o.options.copies === 'shared',
  });
  const { emitter, pipeline, logger } = o;
  const flow = new FlowControl(o.options.flowControl, ws, logger);
  const take = (inbound: InboundEvent): void => {
    // Closing with acks: the service keeps what is not acknowledged and sends it again later.
    if (o.closing() && ws.acks) return;
    const bytes = (inbound.wireEnvelope?.length ?? 0) + FRAME_OVERHEAD_BYTES;
    flow.enter(bytes);
    void pipeline
      .ingest(inbound, 'websocket')
      .then((outcome) => {
        const observer = pipeline.deliveryObserver(inbound);
        // Acknowledged only once done with for good; anything else comes again.
        if (inbound.deliveryId !== undefined && isSettled(outcome) && ws.acks) {
          const id = inbound.deliveryId;
          if (observer === undefined) ws.ack(id);
          else observer.step('ack', () => ws.ack(id));
          pipeline.outcomes.count('acked');
        }
        observer?.end(outcome);
      })
      .finally(() => flow.leave(bytes));
  };
  ws.on('event', (frame) => take(inboundOfFrame(frame)))
    .on('unknownFrame', ({ type, frame }) => {
      if (o.streams !== undefined && isStreamFrameType(type)) {
        const parsed = parseServiceStreamFrame(frame);
        if (parsed === undefined || !o.streams.receive(parsed))
          logger.warn('a stream frame for no open stream was ignored', { type });
        return;
      }
      if (!looksLikeEvent(frame)) {
        logger.warn('a WebSocket frame of an unknown type was ignored', { type });
        return;
      }
      try {
        take(inboundOfFrame(parseUnknownEventFrame(frame)));
      } catch (error) {
        logger.warn('an invalid event frame was dropped', { type, code: (error as AmsError).code });
      }
    })
    .on('open', (info) => emitter.emit('connected', info))
    .on('close', (info) => {
      o.streams?.socketClosed();
      emitter.emit('disconnected', info);
    })
    .on('reconnecting', (info) => emitter.emit('reconnecting', info))
    .on('sessionInvalidated', () => emitter.emit('sessionInvalidated'))
    .on('authExpiring', (info) => {
      logger.info('the agent token expires soon: call agent.renewToken()', {
        expiresInSeconds: info.expiresInSeconds ?? 'unknown',
      });
      emitter.emit('authExpiring', info);
    })
    .on('renewed', () => logger.info('the WebSocket now runs on the renewed token'))
    .on('authError', (info) => {
      if (!info.duringAuth) logger.warn('the service refused the renewed token', { reason: info.reason });
    })
    .on('fatal', (error, info) => o.onFatal(error, info));
  return { dispatcher: ws, flow };
}
