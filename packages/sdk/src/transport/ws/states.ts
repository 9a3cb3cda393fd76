/**
 * The dispatcher's state machine, with an explicit transition table.
 *
 * ```
 * idle ─► connecting ─► authenticating ─► open
 *            │                │             │
 *            └──────┬─────────┴─────────────┘
 *                   ▼
 *          waiting (back-off) ─► connecting …
 * any non-final state ─► closed (close() called) | fatal (terminal condition)
 * ```
 *
 * `closed` and `fatal` are final.
 *
 * @module
 */

/** Every state, in lifecycle order. */
export const WS_STATES = [
  'idle',
  'connecting',
  'authenticating',
  'open',
  'waiting',
  'closed',
  'fatal',
] as const;
/** A dispatcher state. */
export type WsState = (typeof WS_STATES)[number];

/** The allowed transitions: from → the states it may move to. */
export const WS_TRANSITIONS: Readonly<Record<WsState, readonly WsState[]>> = Object.freeze({
  idle: ['connecting', 'closed'],
  connecting: ['authenticating', 'waiting', 'closed', 'fatal'],
  authenticating: ['open', 'waiting', 'closed', 'fatal'],
  open: ['waiting', 'closed', 'fatal'],
  waiting: ['connecting', 'closed', 'fatal'],
  closed: [],
  fatal: [],
});

/** True when `from → to` is in the table. */
export function canTransition(from: WsState, to: WsState): boolean {
  return WS_TRANSITIONS[from].includes(to);
}

/** True for `closed` and `fatal`. */
export function isFinalState(state: WsState): boolean {
  return WS_TRANSITIONS[state].length === 0;
}

/** A state holder that enforces the table. */
export interface StateMachine {
  readonly state: WsState;
  /**
   * Moves to `to`. Returns false (and stays) when the move is not allowed,
   * e.g. a late socket event after `close()`.
   */
  to(to: WsState): boolean;
}

/** Creates a state machine in `idle`; `onChange` runs after each move. */
export function createStateMachine(onChange: (from: WsState, to: WsState) => void): StateMachine {
  let state: WsState = 'idle';
  return {
    get state() {
      return state;
    },
    to(next) {
      if (!canTransition(state, next)) return false;
      const from = state;
      state = next;
      onChange(from, next);
      return true;
    },
  };
}
