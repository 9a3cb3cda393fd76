/**
 * The trust parts shared by the Agent and the UserClient: key pins and the
 * member watch, wired to an emitter (`keyChanged`, `keyRefused`, `membersChanged`) and a
 * logger (a warning per change).
 *
 * @module
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import {
  KeyPins,
  type KeyChangedEvent,
  type KeyChangePolicy,
  type KeyPinStore,
  type KeyRefusedEvent,
} from './key-pins.js';
import { MemberWatch, type MembersChangedEvent } from './member-watch.js';

/** The options both clients take. */
export interface TrustOptions {
  readonly keyChangePolicy?: KeyChangePolicy | undefined;
  readonly keyPinStore?: KeyPinStore | undefined;
}

/** Where the two events go. */
export interface TrustSink {
  keyChanged(e: KeyChangedEvent): void;
  keyRefused?(e: KeyRefusedEvent): void;
  membersChanged(e: MembersChangedEvent): void;
}

/** Builds pins and the member watch for one client. */
export function trustParts(
  o: TrustOptions,
  log: Logger,
  sink: TrustSink,
  options: { readonly clock?: Clock | undefined; readonly pinStore?: KeyPinStore | undefined } = {},
): { pins: KeyPins; members: MemberWatch } {
  const policy = o.keyChangePolicy ?? 'warn';
  const pins = new KeyPins({
    policy,
    ...(o.keyPinStore === undefined ? {} : { store: o.keyPinStore }),
    ...(o.keyPinStore === undefined && options.pinStore !== undefined ? { store: options.pinStore } : {}),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    onKeyRefused(e) {
      log.warn('the service listed a key of a peer that no trusted key vouches for; it is not used', {
        peerId: e.peerId,
        keyId: e.keyId,
        reason: e.reason,
      });
      sink.keyRefused?.(e);
    },
    onKeyChanged(e) {
      log.warn('a peer key changed since it was pinned; compare safety numbers', {
        peerId: e.peerId,
        policy,
      });
      sink.keyChanged(e);
    },
  });
  const members = new MemberWatch({
    policy,
    onMembersChanged(e) {
      log.warn('the members of a conversation changed since the last message sealed for it', {
        conversationId: e.conversationId,
        added: e.added.length,
        removed: e.removed.length,
      });
      sink.membersChanged(e);
    },
  });
  return { pins, members };
}
