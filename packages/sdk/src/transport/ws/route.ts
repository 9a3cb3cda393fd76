/**
 * Where a valid frame on an open connection goes: event frames to `event`
 * (`auth.expiring` to `authExpiring`), `auth.ok` / `auth.error` (answers to
 * `auth.renew`) to `renewed` / `authError`, unknown types to `unknownFrame`,
 * and client-only frames (`auth`, `auth.renew`) to `protocolError`.
 *
 * @module
 */
import { TransportError } from '../../core/errors/transport-error.js';
import { isTerminalAuthError } from '../../core/protocol/ws-close.js';
import type { ParsedWsFrame } from '../../core/protocol/ws-frames.js';
import type { WsDispatcherEventName, WsDispatcherEvents } from './events.js';

/** Emits one dispatcher event. */
export type EmitFn = <E extends WsDispatcherEventName>(event: E, ...args: WsDispatcherEvents[E]) => void;

function expiresIn(frame: Readonly<Record<string, unknown>>): number | undefined {
  const s = frame['expires_in_seconds'];
  return typeof s === 'number' && Number.isFinite(s) ? s : undefined;
}

/** Routes one frame received after `auth.ok`. */
export function routeOpenFrame(parsed: ParsedWsFrame, emit: EmitFn): void {
  if (parsed.kind === 'unknown') {
    emit('unknownFrame', { type: parsed.type, frame: parsed.frame });
    return;
  }
  if (parsed.kind === 'event') {
    if (parsed.frame.type === 'auth.expiring')
      emit('authExpiring', { expiresInSeconds: expiresIn(parsed.frame) });
    else emit('event', parsed.frame);
    return;
  }
  const frame = parsed.frame;
  if (frame.type === 'auth.ok') {
    emit('renewed');
  } else if (frame.type === 'auth.error') {
    emit('authError', {
      reason: frame.reason,
      terminal: isTerminalAuthError(frame.reason),
      duringAuth: false,
    });
  } else {
    const message = `The service sent a client-only ${frame.type} frame.`;
    emit('protocolError', new TransportError({ code: 'TRANSPORT_PROTOCOL', message }));
  }
}
