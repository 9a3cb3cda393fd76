/**
 * Abandoning a response body: undici's body emits `RequestAbortedError` when
 * it is destroyed before its end, and a Node stream that emits 'error' with
 * no listener ends the process. Every place the SDK stops reading a body (a
 * file that failed its checks, an oversized error answer, a cancelled
 * download) goes through {@link discardBody}.
 *
 * @module
 */
import type { Readable } from 'node:stream';

const ignore = (): void => undefined;

/** Destroys `body` (releasing its connection), keeping any error it emits from reaching the process. */
export function discardBody(body: Readable): void {
  body.on('error', ignore);
  body.destroy();
}
