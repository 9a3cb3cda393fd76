/**
 * The agents' open WebSockets, found through the hub: sending a frame to an
 * agent, closing its connections (all, or those of some tokens), and arming
 * the end of a token's grace on a connection.
 *
 * An agent has one open connection, a newer one replacing the older (close
 * 4012), unless its connections asked to share delivery (`share` in `auth`):
 * then up to {@link MAX_AGENT_SOCKETS} live side by side, each conversation
 * going to one of them (`delivery/affinity.ts`), see `agent-sessions.ts`.
 *
 * @module
 */
import type { HubConnection } from '../ws/connection.js';
import { authErrorFrame, WS_CLOSE, type AuthErrorReason, type OutgoingFrame } from '../ws/frames.js';
import type { WsHub } from '../ws/hub.js';

/** Options of {@link AgentSockets.close}. */
export interface CloseAgentOptions {
  /** Only connections authenticated with these tokens. @defaultValue all */
  readonly tokenIds?: readonly string[];
  /** Send `auth.error` with this reason before closing. */
  readonly authError?: AuthErrorReason;
  /** Send this frame before closing. */
  readonly frame?: OutgoingFrame;
}

/** Most live sockets of one agent sharing delivery (Slack's Socket Mode allows 10 too). */
export const MAX_AGENT_SOCKETS = 10;

/** The agents' WebSockets. */
export class AgentSockets {
  readonly #hub: WsHub;
  /** Connections that asked to drain: no new work goes to them. */
  readonly #draining = new WeakSet<HubConnection>();

  constructor(hub: WsHub) {
    this.#hub = hub;
  }

  /** Open connections of `agentId` (optionally of some tokens only). */
  connections(agentId: string, tokenIds?: readonly string[]): HubConnection[] {
    return this.#hub.connections(
      (c) =>
        c.state === 'open' &&
        c.principal?.kind === 'agent' &&
        c.principal.agentId === agentId &&
        (tokenIds === undefined || tokenIds.includes(c.principal.tokenId)),
    );
  }

  /**
   * Sends `frame` to the agent's open connections (only to connection
   * `sessionId` when given); false when none took it (none open, or closing).
   */
  send(agentId: string, frame: Readonly<Record<string, unknown>>, sessionId?: number): boolean {
    const text = { type: String(frame['type'] ?? 'event'), ...frame };
    let sent = false;
    for (const conn of this.connections(agentId))
      if (sessionId === undefined || conn.id === sessionId) sent = conn.send(text) || sent;
    return sent;
  }

  /** The agent's open session for the delivery engine: its id and whether it acknowledges deliveries. */
  session(agentId: string): { readonly id: number; readonly acks: boolean } | undefined {
    return this.sessions(agentId)[0];
  }

  /** Every open session of the agent, oldest first (several when its copies share delivery). */
  sessions(agentId: string): { readonly id: number; readonly acks: boolean; readonly draining: boolean }[] {
    return this.connections(agentId).map((conn) => ({
      id: conn.id,
      acks: conn.negotiated['ack'] !== undefined,
      draining: this.#draining.has(conn),
    }));
  }

  /** Marks `conn` draining (no new work); false when it was already. */
  drain(conn: HubConnection): boolean {
    if (this.#draining.has(conn)) return false;
    this.#draining.add(conn);
    return true;
  }

  /** Closes the agent's connections with `code`; returns how many. */
  close(agentId: string, code: number, reason: string, options: CloseAgentOptions = {}): number {
    const conns = this.connections(agentId, options.tokenIds);
    for (const conn of conns) {
      if (options.frame !== undefined) conn.send(options.frame);
      if (options.authError !== undefined) conn.send(authErrorFrame(options.authError));
      conn.close(code, reason);
    }
    return conns.length;
  }

  /**
   * Closes the connection at the end of its token's grace (`auth.error`
   * `token_revoked`, close 4005), on the server's clock; `noticeMs` before
   * that it sends `auth.expiring` `{ expires_in_seconds }`.
   */
  armGraceEnd(conn: HubConnection, validUntilMs: number, nowMs: number, noticeMs: number): void {
    conn.setTimer('token_expiring', validUntilMs - nowMs - noticeMs, () => {
      conn.send({
        type: 'auth.expiring',
        expires_in_seconds: Math.round(Math.min(noticeMs, validUntilMs - nowMs) / 1000),
      });
    });
    conn.setTimer('token_grace', validUntilMs - nowMs, () => {
      conn.send(authErrorFrame('token_revoked'));
      conn.close(WS_CLOSE.TOKEN_REVOKED, 'token_revoked');
    });
  }
}
