/**
 * Caller input and events of the {@link UserClient}.
 *
 * @module
 */
import type { MessageDeleted, MessageEdited, MessageRead } from '../messaging/message-actions.js';
import type { KeyChangedEvent, KeyRefusedEvent } from '../messaging/key-pins.js';
import type { MembersChangedEvent } from '../messaging/member-watch.js';
import type { KeyWarning } from '../messaging/ghost-keys.js';
import type { AmsError } from '../core/errors/base.js';
import type { ReceivedMessage } from './open-message.js';
import type { SentMessageResult } from '../messaging/wire/results.js';
import type { ReceivedArtifact, ReceivedReaction } from './user-artifacts.js';
import type { StatusUpdate } from './user-status.js';
import type {
  StreamDelta,
  StreamEnded,
  StreamFailure,
  StreamPartDropped,
  StreamPartUpdate,
  StreamStarted,
} from './streams/receiver.js';
import type { GroupKeyRotatedPayload, GroupUpdatedPayload } from '../core/protocol/groups.js';

/** `group.updated`: someone joined, left or was removed, or the group was created. */
export interface GroupUpdatedEvent {
  readonly conversationId: string;
  /** `created`, `joined`, `left`, `removed`, or another value kept as-is. */
  readonly change: string;
  /** Who joined, left or was removed (the creator for `created`). */
  readonly memberId: string;
  readonly keyVersion: number;
  /** The members after the change. */
  readonly memberIds: readonly string[];
  readonly payload: GroupUpdatedPayload;
}

/** `system.group_key_rotated`: the group key version moved on. */
export interface GroupKeyRotatedEvent {
  readonly conversationId: string;
  readonly keyVersion: number;
  readonly previousVersion: number;
  /** `membership` or `requested` (another value kept as-is). */
  readonly reason: string;
  /** Who caused it (the member who joined or left, or who asked). */
  readonly rotatedBy: string;
  readonly payload: GroupKeyRotatedPayload;
}

/** An agent's signed answer to `stopTurn`. */
export interface TurnStoppedNotice {
  readonly conversationId: string;
  /** The agent that stopped (signed sender). */
  readonly agentId: string;
  /** The id `stopTurn` returned. */
  readonly stopId: string;
  /** Running turns the stop aborted (0: nothing was running). */
  readonly turns: number;
  /** The answer's signed message id. */
  readonly messageId: string;
}

/** What `UserClient.stopTurn` returns. */
export interface StopTurnResult {
  /** The stop's id, echoed in the agent's `turnStopped` answer. */
  readonly stopId: string;
  /** The sealed stop message as sent. */
  readonly sent: SentMessageResult;
}

/** Options of `UserClient.sendCode`. */
export interface SendCodeOptions {
  email: string;
  /** What the code is for. */
  scene: 'register' | 'login' | 'reset';
  /** The human-verification (Turnstile) token. */
  turnstileToken: string;
}

/** Options of `UserClient.register`. */
export interface RegisterOptions {
  email: string;
  /** The 6-digit code from `sendCode` with scene `register`. */
  code: string;
  /** The account password: at least 8 characters. Sent to the service (over TLS), never logged. */
  accountPassword: string;
  /** 2 to 24 characters. */
  displayName: string;
  /** A BCP 47 language tag, e.g. `en-GB`. */
  deviceLocale: string;
  turnstileToken: string;
  /**
   * The protection password that encrypts the key backup: at least 8
   * characters, separate from the account password, never sent anywhere.
   */
  protectionPassword: string;
}

/** Options of `UserClient.login`. */
export interface LoginOptions {
  email: string;
  accountPassword: string;
  turnstileToken: string;
  /** Unlocks the keys from the backup as well (needed to send and read messages). */
  protectionPassword?: string;
}

/** Options of `UserClient.loginWithCode`. */
export interface CodeLoginOptions {
  email: string;
  /** The 6-digit code from `sendCode` with scene `login`. */
  code: string;
  /** Unlocks the keys from the backup as well. */
  protectionPassword?: string;
}

/** Options of `UserClient.resetPassword`. */
export interface ResetPasswordOptions {
  email: string;
  /** The 6-digit code from `sendCode` with scene `reset`. */
  code: string;
  newAccountPassword: string;
}

/** Options of `UserClient.messages`. */
export interface InboxOptions {
  /** Only messages with a greater `seq`. @defaultValue `0` */
  after?: number;
  /** Page size (the reference server allows 1–200). @defaultValue the service's (50) */
  limit?: number;
}

/** A message that could not be opened (discarded; other messages are unaffected). */
export interface FailedMessage {
  readonly messageId: string | undefined;
  readonly seq: number | undefined;
  readonly conversationId?: string;
  /** Usually a `CryptoError` (`DECRYPT_FAILURE` with its `reason`). */
  readonly error: AmsError;
}

/** One page of the inbox. */
export interface InboxPage {
  /** Opened messages, oldest first; actions on messages are listed apart, in `actions`. */
  readonly messages: readonly ReceivedMessage[];
  /**
   * Opened actions on messages, oldest first: edits (`message.edit`), deletes
   * (`message.delete`), read receipts (`receipt`) and reactions (`reaction`),
   * each checked like a message (signature, conversation, sender) but not
   * applied to `messages`: apply them as the live events do (`messageEdited`,
   * `messageDeleted`, `messageRead`, `reaction`), checking that an edit's or a
   * delete's sender is the sender of the message it names.
   */
  readonly actions: readonly ReceivedMessage[];
  /** Messages that failed to open. */
  readonly failed: readonly FailedMessage[];
  /** Pass as `after` to read on (the last `seq` seen). */
  readonly cursor: number;
}

/** Events of the {@link UserClient}. */
export interface UserClientEvents {
  /** A message arrived over the WebSocket and was opened. */
  message: [message: ReceivedMessage];
  /** An artifact arrived (also emitted as `message`): answer it with `approve(data)` or `deny(reason)`. */
  artifact: [artifact: ReceivedArtifact];
  /** A reaction arrived (WebSocket only; not emitted as `message`). */
  reaction: [reaction: ReceivedReaction];
  /**
   * An agent's status changed (WebSocket only; sealed, not emitted as
   * `message`): `working` with its text (or `null` for a plain indicator),
   * or `idle` with `text: null` once cleared, replied or expired.
   */
  status: [update: StatusUpdate];
  /** A message arrived but could not be opened. */
  messageFailed: [failure: FailedMessage];
  /** The WebSocket authenticated (also after a reconnect). */
  connected: [];
  /** The open WebSocket now runs on a refreshed access token (`auth.renew` answered `auth.ok`). */
  tokenRenewed: [];
  /** A WebSocket connection ended (a reconnect follows unless it was terminal or `disconnect()`). */
  disconnected: [info: { code: number; reason: string }];
  /** This device's session was revoked: sign in again. */
  sessionInvalidated: [];
  /**
   * The service said the access token expires soon (`auth.expiring`, about
   * 60 s before); the client refreshes it by itself (`tokenRenewed` follows).
   * Camel-case like the Agent's `authExpiring`.
   */
  authExpiring: [info: { readonly expiresInSeconds: number | undefined }];
  /** The WebSocket stopped for good. */
  connectionFailed: [error: AmsError];
  /** A peer's keys differ from the pinned ones (see `keyChangePolicy`). */
  keyChanged: [event: KeyChangedEvent];
  /** The service listed a key of a peer that no trusted key vouches for (a ghost, or a killed generation); it is not used. */
  keyRefused: [event: KeyRefusedEvent];
  /** The recipients of a conversation differ from the set last sealed for. */
  membersChanged: [event: MembersChangedEvent];
  /**
   * The ghost detector: a message was also wrapped to a key listed under this
   * user's id that the user does not hold (a key the service slipped in).
   * The message itself is delivered; the warning names the fingerprints.
   */
  keyWarning: [warning: KeyWarning];
  /** An agent started a streamed reply (its stream key opened). */
  streamStart: [info: StreamStarted];
  /** The next delta of a stream, opened and in order. */
  streamDelta: [info: StreamDelta];
  /** A stream ended: the full text, every delta in order, signed by the agent. */
  streamEnd: [info: StreamEnded];
  /** A stream broke (tampered, reordered, duplicated, truncated), was aborted, or the service ended it. */
  streamError: [failure: StreamFailure];
  /** A typed part of a stream was added or updated (a step's status, a tool's result, a source, reasoning). */
  streamPart: [update: StreamPartUpdate];
  /** A part record of a stream did not parse or contradicted an earlier one: dropped, the stream goes on. */
  streamPartDropped: [dropped: StreamPartDropped];
  /** A group's members changed (`group.updated`, WebSocket only). */
  groupUpdated: [event: GroupUpdatedEvent];
  /** A group's key version moved on (`system.group_key_rotated`, WebSocket only). */
  groupKeyRotated: [event: GroupKeyRotatedEvent];
  /** An agent answered a stop (`stopTurn`): its running turns were aborted (not emitted as `message`). */
  turnStopped: [event: TurnStoppedNotice];
  /** A member edited one of its messages (sealed, signed `message.edit`; not emitted as `message`). */
  messageEdited: [event: MessageEdited];
  /** A member deleted one of its messages (sealed, signed `message.delete`; not emitted as `message`). */
  messageDeleted: [event: MessageDeleted];
  /** A member read messages (sealed `receipt`; only with `readReceipts: true`; not emitted as `message`). */
  messageRead: [event: MessageRead];
}
