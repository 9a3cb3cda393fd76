/**
 * WebSocket dispatcher: `createWsDispatcher` and its parts.
 *
 * @module
 */
export { createWsDispatcher, type WsDispatcher, type WsDispatcherListener } from './dispatcher.js';
export { DEFAULT_WS_OPTIONS, type WsDispatcherOptions } from './options.js';
export type { FatalInfo, WsDispatcherEventName, WsDispatcherEvents } from './events.js';
export { createBackoff, DEFAULT_BACKOFF, type Backoff, type BackoffOptions } from './backoff.js';
export {
  createHeartbeat,
  DEFAULT_HEARTBEAT,
  type Heartbeat,
  type HeartbeatOptions,
  type HeartbeatTarget,
} from './heartbeat.js';
export { canTransition, isFinalState, WS_STATES, WS_TRANSITIONS, type WsState } from './states.js';
export type { SocketCloseEvent, SocketMessageEvent, WebSocketConstructor, WebSocketLike } from './socket.js';
export type { ConnectionEnd, ClientFailure } from './connection.js';
