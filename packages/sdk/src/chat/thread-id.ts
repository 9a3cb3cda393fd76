/**
 * Chat SDK thread ids for our conversations: `ams:d:<id>` for a one-to-one
 * conversation (a DM), `ams:g:<id>` for a group, the conversation id in
 * base64url (our ids are opaque and may hold a colon). A conversation is
 * the thread and its own channel: the service has no sub-threads.
 *
 * @module
 */
import { ValidationError } from '../index.js';

/** The adapter's name, the first segment of its thread ids. */
export const AMS_ADAPTER_NAME = 'ams';

/** A decoded thread id: the conversation and whether it is a one-to-one conversation or a group. */
export interface AmsThreadId {
  /** Our conversation id. */
  readonly conversationId: string;
  /** `dm`: a conversation of one human and the agent; `group`: a group. */
  readonly kind: 'dm' | 'group';
}

/** `ams:d:<base64url id>` or `ams:g:<base64url id>`. */
export function encodeAmsThreadId(thread: AmsThreadId): string {
  if (typeof thread.conversationId !== 'string' || thread.conversationId === '') {
    throw new ValidationError({ message: 'A thread needs a conversation id' });
  }
  const kind = thread.kind === 'group' ? 'g' : 'd';
  return `${AMS_ADAPTER_NAME}:${kind}:${toBase64Url(thread.conversationId)}`;
}

/**
 * The conversation of a thread id made by {@link encodeAmsThreadId}.
 *
 * @throws {@link ValidationError} for anything else (the id is not echoed: it may be long).
 */
export function decodeAmsThreadId(threadId: string): AmsThreadId {
  const parts = typeof threadId === 'string' ? threadId.split(':') : [];
  const [name, kind, segment] = parts;
  if (parts.length !== 3 || name !== AMS_ADAPTER_NAME || (kind !== 'd' && kind !== 'g')) {
    throw new ValidationError({ message: 'Not an ams thread id (expected ams:d:<id> or ams:g:<id>)' });
  }
  if (segment === undefined || !/^[A-Za-z0-9_-]+$/.test(segment)) {
    throw new ValidationError({ message: 'The conversation segment of an ams thread id is not base64url' });
  }
  const conversationId = fromBase64Url(segment);
  if (encodeAmsThreadId({ conversationId, kind: kind === 'g' ? 'group' : 'dm' }) !== threadId) {
    throw new ValidationError({ message: 'The conversation segment of an ams thread id is not canonical' });
  }
  return { conversationId, kind: kind === 'g' ? 'group' : 'dm' };
}

/** base64url of the UTF-8 bytes, unpadded (btoa and TextEncoder: every runtime, no Buffer). */
function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** The text of a base64url segment; `''` for bytes that are not UTF-8 (the canonical check then fails). */
function fromBase64Url(segment: string): string {
  try {
    const binary = atob(segment.replaceAll('-', '+').replaceAll('_', '/'));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return '';
  }
}
