/**
 * Transports: the REST client core (undici) and the agent WebSocket
 * dispatcher (ws). Node-oriented: both default to Node libraries, and both
 * take injectable seams (`dispatcher`, `WebSocket`, `clock`, `logger`).
 *
 * @module
 */
export * from './rest/index.js';
export * from './ws/index.js';
