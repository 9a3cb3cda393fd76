/**
 * What the Agent says when it stops for good: one error-level line naming
 * the reason in words and what to do, and, when nobody listens to `fatal`,
 * a non-zero exit code for the process so a stopped bot never exits 0
 * silently.
 *
 * @module
 */
import type { AmsError } from '../core/errors/base.js';
import type { Logger } from '../core/logger.js';
import { WS_CLOSE_CODES } from '../core/protocol/ws-close.js';
import type { FatalInfo } from '../transport/ws/events.js';

/** The exit code set when a `fatal` has no listener. */
export const FATAL_EXIT_CODE = 1;

/** The reason of a fatal stop, in words, with what to do about it. */
export function fatalReason(error: AmsError, info: FatalInfo | undefined): string {
  if (info?.closeCode === WS_CLOSE_CODES.REPLACED) {
    return 'another process connected as this agent (WebSocket close 4012 "replaced"): two copies of this bot are running; stop one of them, or give every copy copies: "shared" (docs/production.md)';
  }
  if (error.code === 'TRANSPORT_CONNECTION_LIMIT') {
    return 'this agent already has 10 live copies sharing delivery (close 4014): run fewer copies';
  }
  if (info?.closeCode === WS_CLOSE_CODES.WEBHOOK_MODE) {
    return 'a webhook address was set for this agent (close 4013): it now receives events by webhook; use mode: "webhook" or remove the address';
  }
  switch (error.code) {
    case 'AGENT_TOKEN_INVALID':
      return 'the service does not know this agent or its token (invalid or revoked). Against a dev server that was restarted (it keeps its state in memory), run `ams dev bootstrap` again; otherwise issue a new token and set AMS_AGENT_TOKEN (or call agent.renewToken())';
    case 'AGENT_SUSPENDED':
      return 'the agent was suspended by the platform (governance L2)';
    case 'AGENT_BANNED':
      return 'the agent was banned by the platform (governance L3)';
    default:
      return error.message;
  }
}

/** What {@link reportFatal} needs. */
export interface FatalReport {
  readonly error: AmsError;
  readonly info: FatalInfo | undefined;
  readonly logger: Logger;
  /** True when a `fatal` listener exists (then the application decides what follows). */
  readonly listened: boolean;
  /** The process, when there is one. */
  readonly host: { exitCode?: number | string | null | undefined } | undefined;
}

/** Logs the fatal stop at error level; without a listener, sets the process's exit code to 1. */
export function reportFatal(r: FatalReport): void {
  const reason = fatalReason(r.error, r.info);
  const fields = {
    code: r.error.code,
    ...(r.info === undefined ? {} : { closeCode: r.info.closeCode }),
  };
  if (r.listened) {
    r.logger.error(`the agent stopped for good: ${reason}`, fields);
    return;
  }
  if (r.host !== undefined && (r.host.exitCode === undefined || Number(r.host.exitCode ?? 0) === 0)) {
    r.host.exitCode = FATAL_EXIT_CODE;
  }
  r.logger.error(
    `the agent stopped for good: ${reason} (no "fatal" listener: the process will exit with code ${FATAL_EXIT_CODE})`,
    fields,
  );
}
