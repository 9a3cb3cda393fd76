/**
 * Controls that cannot work yet are disabled, with the reason on the page
 * (issue #28: with no user signed in, Add agent and Drop WebSocket answered
 * `UNAUTHORIZED` in small red text). Three levels: nobody signed in, a user
 * but no agent picked, an agent picked (and, for the relation buttons, its
 * chat open).
 *
 * @module
 */

/** What the page knows when it redraws its controls. */
export interface Readiness {
  readonly signedIn: boolean;
  readonly agentId: string | undefined;
  /** A one-to-one chat is open (the relation buttons act on it). */
  readonly chatOpen: boolean;
  /** A conversation (chat or group) is open (its timeline can be read). */
  readonly conversationOpen?: boolean;
}

/** Needs a signed-in user. */
const USER_CONTROLS = ['add-agent-button', 'agent-name', 'refresh-agents', 'refresh-requests'];
/** Needs an agent picked. */
const AGENT_CONTROLS = [
  'fail',
  'drop-ws',
  'set-governance',
  'recover',
  'use-webhook',
  'use-websocket',
  'send-event',
  'token-regenerate',
  'token-emergency',
  'token-revoke',
];
/** Needs the agent's chat open. */
const CHAT_CONTROLS = ['suspend-relation', 'restore-relation'];

/** Needs a conversation open (chat or group). */
const CONVERSATION_CONTROLS = ['show-timeline'];

/** The reason shown while nobody is signed in. */
export const SIGN_IN_FIRST = 'Sign in first: New dev user, or Sign in as the owner ams dev bootstrap made.';
/** The reason shown while no agent is picked. */
export const PICK_AN_AGENT = 'Pick an agent (or add one) to act on it.';
/** The reason shown while no conversation is open. */
export const OPEN_A_CONVERSATION = "Open an agent's chat or a group to see its deliveries in order.";
/** The reason shown while the agent's chat is not open. */
export const OPEN_THE_CHAT = "Open the agent's chat (its bot must have started) to change the relation.";

function setAll(ids: readonly string[], reason: string | undefined): void {
  for (const id of ids) {
    const el = document.getElementById(id) as HTMLButtonElement | HTMLInputElement | null;
    if (el === null) continue;
    el.disabled = reason !== undefined;
    if (reason === undefined) el.removeAttribute('title');
    else el.title = reason;
  }
}

function say(id: string, reason: string | undefined): void {
  const el = document.getElementById(id);
  if (el === null) return;
  el.textContent = reason ?? '';
  el.hidden = reason === undefined;
}

/** Enables what can work now; disables the rest with its reason (`title`, and a line per panel). */
export function renderReadiness(r: Readiness): void {
  const user = r.signedIn ? undefined : SIGN_IN_FIRST;
  const agent = user ?? (r.agentId === undefined ? PICK_AN_AGENT : undefined);
  const chat = agent ?? (r.chatOpen ? undefined : OPEN_THE_CHAT);
  setAll(USER_CONTROLS, user);
  setAll(AGENT_CONTROLS, agent);
  setAll(CHAT_CONTROLS, chat);
  const conversation = user ?? (r.conversationOpen === true ? undefined : OPEN_A_CONVERSATION);
  setAll(CONVERSATION_CONTROLS, conversation);
  say('timeline-reason', conversation);
  say('add-agent-reason', user);
  say('controls-reason', agent);
}
