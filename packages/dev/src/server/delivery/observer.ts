/**
 * What the delivery engine tells an observer (the dev console's live feed):
 * one call per change of an agent's deliveries or connection, naming the
 * agent and, when there is one, the delivery. Ids and kinds only: the
 * observer reads the rest (attempt detail, pending count, status) from the
 * engine when it wants it.
 *
 * @module
 */

/** A kind of change. */
export type DeliveryChange =
  | 'queued'
  | 'attempt_started'
  | 'attempt_finished'
  | 'delivered'
  | 'failed'
  | 'unreachable'
  | 'requeued'
  | 'recovered'
  | 'websocket_connected'
  | 'websocket_closed';

/** One change of an agent's deliveries or connection. */
export interface DeliveryObservation {
  readonly change: DeliveryChange;
  readonly agentId: string;
  readonly deliveryId?: string | undefined;
  /** The delivered event's type (`queued`). */
  readonly eventType?: string | undefined;
}

/** Receives observations; what it throws is ignored. */
export type DeliveryObserver = (observation: DeliveryObservation) => void;
