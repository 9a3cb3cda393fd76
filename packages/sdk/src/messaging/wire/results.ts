/**
 * camelCase results built from wire answers, shared by the agent API and the
 * user client.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import type { AgentKeyView } from './keys.js';
import type { SentMessage } from './conversations.js';

/** A registered key generation, camelCase. Public keys stay base64 as the service gave them. */
export interface RegisteredKeys {
  /** X25519 public key, base64. */
  readonly publicKey: string;
  /** Ed25519 public key, base64. */
  readonly signingPublicKey: string;
  /** Fingerprint of `publicKey` (`keyFingerprint`). */
  readonly keyId: string;
  /** End of the generation's grace (ms since the epoch), or null when it has none. */
  readonly validUntilMs: number | null;
  /** Number of the generation (1 for the first registered one), when the service says. */
  readonly generation?: number;
}

/** The outcome of a message send. */
export interface SentMessageResult {
  /** The message id (the envelope's). */
  readonly messageId: string;
  readonly conversationId: string;
  /** Inbox cursor of the stored message, when the service gives one. */
  readonly seq: number | undefined;
  /** False when the service already had this exact envelope (an idempotent repeat, HTTP 200). */
  readonly created: boolean;
  /** The whole answer (wire field names). */
  readonly view: SentMessage;
}

/** A {@link RegisteredKeys} from a key view. */
export function keysOf(k: AgentKeyView): RegisteredKeys {
  return {
    publicKey: k.public_key,
    signingPublicKey: k.signing_public_key,
    keyId: k.key_id,
    validUntilMs: k.valid_until == null ? null : Date.parse(k.valid_until),
    ...(k.generation === undefined ? {} : { generation: k.generation }),
  };
}

/** A {@link SentMessageResult} from a send answer and its HTTP status. */
export function sentOf(view: SentMessage, status: number): SentMessageResult {
  return {
    messageId: view.message_id,
    conversationId: view.conversation_id,
    seq: view.seq,
    created: status === 201,
    view,
  };
}

/** The error for a missing or empty required option. */
export function configError(option: string): ConfigurationError {
  return new ConfigurationError({ option, message: `Option "${option}" is required (a non-empty value).` });
}
