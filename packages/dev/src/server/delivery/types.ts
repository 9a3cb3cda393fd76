/**
 * The contract between the agents core of the reference server (agents,
 * conversations, the agents' WebSockets) and the delivery engine (pending
 * queue, webhook attempts on the retry schedule, delivery logs, oversize
 * objects). The agents core produces {@link OutboundEvent}s; the engine
 * decides how and when each reaches the agent.
 *
 * @module
 */
import type { Clock } from 'agent-messaging-sdk/protocol';
import type { DeliveryLogEntry } from 'agent-messaging-sdk/protocol';

/** One event for one agent, already sealed (the server never sees plaintext). */
export interface OutboundEvent {
  /** Event type, e.g. `message.new`, `relation.revoked`. */
  readonly type: string;
  /** The sealed envelope, standard base64 (the `wire_envelope` of the delivery body). */
  readonly wireEnvelope: string;
  /** The delivery body's `metadata`. `created_at` is ISO 8601 UTC with milliseconds. */
  readonly metadata: {
    readonly conversation_id: string;
    readonly sender_id: string;
    readonly created_at: string;
  };
  /** Id of the message the envelope carries, when it is a message (for sender notices). */
  readonly messageId?: string;
}

/** How the agents core lets the engine reach an agent. */
export interface AgentDeliveryTarget {
  /**
   * `webhook` when the agent has a registered webhook, `websocket` otherwise;
   * `undefined` when the agent does not exist (the event is dropped and logged).
   */
  mode(agentId: string): 'websocket' | 'webhook' | undefined;
  /**
   * Sends one frame (a JSON object) to the agent's open, authenticated
   * WebSocket (to session `sessionId` only, when given: an agent whose
   * copies share delivery has several). Returns false when none took it
   * (the engine keeps the event pending).
   */
  sendWs(agentId: string, frame: Readonly<Record<string, unknown>>, sessionId?: number): boolean;
  /**
   * The agent's open, authenticated WebSocket session, if any: its id and
   * whether delivery acknowledgements were negotiated on it (`ack` in
   * `auth` / `auth.ok`). Without this method every session is taken as one
   * without acks (a delivery counts once it is written to the socket).
   */
  wsSession?(agentId: string): WsSession | undefined;
  /**
   * Every open, authenticated WebSocket session of the agent, oldest first
   * (several when its copies share delivery, gap decision "Several live
   * sockets per agent", docs/production.md). Without this method the
   * engine uses {@link AgentDeliveryTarget.wsSession}.
   */
  wsSessions?(agentId: string): readonly WsSession[];
}

/** An agent's authenticated WebSocket as the engine sees it. */
export interface WsSession {
  /** Unique per process; acks and disconnects name it. */
  readonly id: number;
  /** True when the agent acknowledges deliveries on this session. */
  readonly acks: boolean;
  /** True once the session asked to drain: it gets no new conversation and no new event. */
  readonly draining?: boolean;
}

/**
 * WebSocket acknowledgements (a gap decision: the service shows no ack
 * frame). Deliveries sent on a session with acks stay pending until the agent
 * acknowledges them; they are sent again first on the agent's next session,
 * or on the same session when the ack is overdue, at most `maxAttempts`
 * times, then logged `failed` (`ack_timeout`).
 */
export interface WsAckOptions {
  /** Unacknowledged deliveries in flight per agent. @defaultValue `256` */
  readonly window?: number;
  /** Time to wait for an ack before sending the delivery again. @defaultValue `30 000` ms */
  readonly timeoutMs?: number;
  /** Sends of one delivery (first send, redeliveries and resends). @defaultValue `10` */
  readonly maxAttempts?: number;
}

/** A webhook registration: the address and the shared secret exactly as issued. */
export interface WebhookRegistration {
  readonly url: string;
  /** base64 of ≥ 32 random bytes; the HMAC key is the UTF-8 bytes of this string. */
  readonly secret: string;
}

/** An oversize payload stored as an object (`GET /r2/<object_key>`). */
export interface StoredObject {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  /** Only this agent's token may read it. */
  readonly agentId: string;
}

/** The engine's dependencies. */
export interface DeliveryEngineDeps {
  readonly clock: Clock;
  readonly target: AgentDeliveryTarget;
  /**
   * Called when pending events are dropped after 24 h in the queue of an
   * unreachable agent, so the agents core can send each sender a
   * delivery-failure notice.
   */
  readonly onExpired?: (agentId: string, events: readonly OutboundEvent[]) => void;
  /** Time the engine waits for a receiver's answer. @defaultValue 10 000 ms */
  readonly webhookTimeoutMs?: number;
  /** WebSocket acknowledgement settings (window, ack timeout, attempts). */
  readonly wsAck?: WsAckOptions;
  /** Called with one line per notable engine action (never secrets). */
  readonly log?: (message: string, fields?: Readonly<Record<string, unknown>>) => void;
}

/** The delivery engine as the agents core and the routes use it. */
export interface DeliveryEngine {
  /** Queues one event for an agent and starts delivering it (WebSocket or webhook). */
  enqueue(agentId: string, event: OutboundEvent): void;
  /** The agent's WebSocket just authenticated: deliver what waits for it, in order. */
  onAgentConnected(agentId: string): void;
  /**
   * The agent's WebSocket session `sessionId` ended: its unacknowledged
   * deliveries go back to the front of the queue, in order.
   */
  onAgentDisconnected(agentId: string, sessionId: number): void;
  /**
   * One of the agent's sessions asked to drain (copies sharing delivery):
   * it gets no new work; its idle conversations move to its siblings.
   */
  onAgentDraining(agentId: string): void;
  /**
   * The agent acknowledged deliveries (an `ack` frame): each one still
   * pending is logged `delivered` and leaves the queue. Unknown or already
   * acknowledged ids are ignored. Returns how many were newly acknowledged.
   */
  ack(agentId: string, deliveryIds: readonly string[]): number;
  /** `POST /agents/:id/connection/recover`: set `ready`, flush the queue in order. */
  recover(agentId: string): { readonly pendingCount: number };
  /** The agent's `connection_status`. */
  connectionStatus(agentId: string): 'ready' | 'unreachable';
  /** Registers (or with null removes) the agent's webhook; takes effect at once. */
  setWebhook(agentId: string, registration: WebhookRegistration | null): void;
  /** The current webhook registration. */
  getWebhook(agentId: string): WebhookRegistration | undefined;
  /** Delivery log entries of the agent, newest first, at most `limit`, within 30 days. */
  logs(agentId: string, limit: number): DeliveryLogEntry[];
  /** Events waiting for the agent right now (queued, or sent and not yet acknowledged). */
  pendingCount(agentId: string): number;
  /** Oversize objects. */
  getObject(objectKey: string): StoredObject | undefined;
  /** Forgets everything about an agent (agent deleted). */
  forgetAgent(agentId: string): void;
  /** Stops timers and in-flight attempts. */
  close(): Promise<void>;
}
