import { WebSocket } from 'ws';
import type { WebSocketConstructor } from './socket.js';
const c: WebSocketConstructor = WebSocket;
export { c };
