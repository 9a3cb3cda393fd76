/**
 * Forwarding and reactions, shared by the Agent and the UserClient: both
 * re-seal on the client (the service relays ciphertext only).
 *
 * - Forward: the opened source (payload and signed ids) is wrapped in a
 *   `forwarded` payload and sealed once per target conversation; one request
 *   carries every copy. When the source's wire envelope is known (a message
 *   object this client opened, or `source.wireEnvelope`), the copy carries a
 *   proof: that envelope and its content key, so receivers verify the
 *   attribution against the original sender's key (`forward-attribution.ts`). More than 10 targets is refused here first, with the
 *   service's own error (`FORWARD_TARGET_LIMIT`, a {@link ServiceError} with
 *   status 400), so no envelope is sealed in vain.
 * - React: `{ type: 'reaction', message_id, emoji, action }` sealed as
 *   `reaction.update` to the conversation's members.
 *
 * @module
 */
import { ServiceError } from '../core/errors/service-error.js';
import { ValidationError } from '../core/errors/validation-error.js';
import {
  FORWARD_PROOF_MAX_CHARS,
  FORWARD_TARGET_MAX,
  ReactionPayloadSchema,
  type ForwardedPayload,
  type ForwardProof,
  type ReactionPayload,
} from '../core/protocol/artifacts.js';
import { parseWith } from '../core/protocol/parse.js';
import { ARTIFACT_ROUTES, routePath } from '../core/protocol/service-names.js';
import type { EnvelopePayload } from '../crypto/payload.js';
import { toBase64 } from '../core/encoding.js';
import { wireEnvelopeOf } from './forward-attribution.js';
import type { RestClient } from '../transport/rest/client.js';
import * as z from '../core/lazy-zod.js';
import type { MessageSender } from './sender.js';

/** What is forwarded: an opened message (an Agent's `IncomingMessage`, a UserClient's `ReceivedMessage` fit). */
export interface ForwardSource {
  readonly conversationId: string;
  readonly messageId: string;
  readonly senderId: string;
  readonly createdAt: string;
  readonly payload: EnvelopePayload;
  /**
   * The source's wire envelope, for the forward proof. Optional: a message
   * object this client opened is recognised without it.
   */
  readonly wireEnvelope?: string;
}

/** One forwarded copy. */
export interface ForwardedCopy {
  readonly conversationId: string;
  readonly messageId: string;
  readonly seq: number;
}

/** Result of a reaction: whether the other side had an open WebSocket to relay it to. */
export interface ReactionResult {
  readonly delivered: boolean;
}

/** Options of `react`. */
export interface ReactOptions {
  /** Withdraw the reaction instead of adding it. @defaultValue false */
  readonly remove?: boolean;
}

/** What the actions need. */
export interface RelayActionsDeps {
  readonly rest: () => RestClient;
  readonly sender: () => Promise<MessageSender>;
  /**
   * The content key of an envelope this principal received (`discloseContentKey`
   * with its own keys). Absent: copies carry no proof.
   */
  readonly discloseKey?: (wireEnvelope: string) => Promise<Uint8Array>;
}

const ForwardAnswerSchema = z.looseObject({
  forwarded: z.array(
    z.looseObject({ conversation_id: z.string(), message_id: z.string(), seq: z.number().int() }),
  ),
});
const ReactAnswerSchema = z.looseObject({ delivered: z.boolean() });

/**
 * The `forwarded` payload of a source, with `proof` when given; a copy of a
 * copy keeps the first original (and its proof, if it had one).
 */
export function forwardedPayload(source: ForwardSource, proof?: ForwardProof): ForwardedPayload {
  if (source.payload['type'] === 'forwarded') return source.payload as ForwardedPayload;
  return {
    type: 'forwarded',
    original: {
      conversation_id: source.conversationId,
      message_id: source.messageId,
      sender_id: source.senderId,
      created_at: source.createdAt,
    },
    payload: source.payload,
    ...(proof === undefined ? {} : { proof }),
  };
}

/**
 * Checks a target list on the client before anything is sealed.
 *
 * @throws {@link ServiceError} `FORWARD_TARGET_LIMIT` (status 400) over 10 targets;
 * {@link ValidationError} for none or a repeated one.
 */
export function checkForwardTargets(targets: readonly string[]): void {
  if (targets.length > FORWARD_TARGET_MAX) {
    throw new ServiceError({
      code: 'FORWARD_TARGET_LIMIT',
      status: 400,
      message: `At most ${FORWARD_TARGET_MAX} forward targets (checked before sending).`,
      params: { max: FORWARD_TARGET_MAX, count: targets.length },
    });
  }
  if (targets.length === 0 || new Set(targets).size !== targets.length) {
    throw new ValidationError({
      message: 'Forward to 1 to 10 distinct conversations.',
      issues: [{ path: ['targets'], message: 'empty or repeated' }],
    });
  }
}

/** Forward and react, for one principal. */
export class RelayActions {
  readonly #d: RelayActionsDeps;

  /** @internal Built by the Agent and the UserClient. */
  constructor(deps: RelayActionsDeps) {
    this.#d = deps;
  }

  /**
   * Forwards an opened message (or artifact) to up to 10 conversations of
   * the caller, re-sealed for each.
   *
   * @throws {@link ServiceError} `FORWARD_TARGET_LIMIT` (also before sending), `ARTIFACT_NOT_FORWARDABLE`,
   * `MESSAGE_NOT_FOUND`, `CONVERSATION_NOT_FOUND` / `CONVERSATION_FORBIDDEN`, `RELATION_REVOKED`.
   */
  async forward(source: ForwardSource, targets: readonly string[]): Promise<ForwardedCopy[]> {
    checkForwardTargets(targets);
    const sender = await this.#d.sender();
    const payload = forwardedPayload(source, await this.#proof(source, targets.length));
    const sealed = [];
    for (const conversationId of targets) {
      const wire = await sender.sealAndPost(conversationId, payload, {}, (w) => Promise.resolve(w));
      sealed.push({ conversation_id: conversationId, wire_envelope: wire });
    }
    const data = await this.#d.rest().request({
      method: ARTIFACT_ROUTES.forward.method,
      path: routePath(ARTIFACT_ROUTES.forward),
      body: {
        source: { conversation_id: source.conversationId, message_id: source.messageId },
        targets: sealed,
      },
      schema: ForwardAnswerSchema,
    });
    return data.forwarded.map((f) => ({
      conversationId: f.conversation_id,
      messageId: f.message_id,
      seq: f.seq,
    }));
  }

  /**
   * The proof of a source: its envelope and content key, when both are at
   * hand and the proofs of all `targets` copies fit `FORWARD_PROOF_MAX_CHARS`
   * (each copy carries one, in the one forward request).
   */
  async #proof(source: ForwardSource, targets: number): Promise<ForwardProof | undefined> {
    const disclose = this.#d.discloseKey;
    if (disclose === undefined || source.payload['type'] === 'forwarded') return undefined;
    const wire = source.wireEnvelope ?? wireEnvelopeOf(source);
    if (wire === undefined || wire.length * targets > FORWARD_PROOF_MAX_CHARS) return undefined;
    let key: Uint8Array;
    try {
      key = await disclose(wire);
    } catch {
      // Not an envelope this principal can open (v1.0, or not addressed to it): no proof.
      return undefined;
    }
    const proof = { wire_envelope: wire, content_key: toBase64(key) };
    key.fill(0);
    return proof;
  }

  /**
   * Reacts to a message with an emoji (sealed), or withdraws the reaction.
   *
   * @throws {@link ValidationError} for something that is not an emoji;
   * {@link ServiceError} `MESSAGE_NOT_FOUND`, `RELATION_REVOKED`, …
   */
  async react(
    conversationId: string,
    messageId: string,
    emoji: string,
    options: ReactOptions = {},
  ): Promise<ReactionResult> {
    const payload: ReactionPayload = parseWith(
      ReactionPayloadSchema,
      { type: 'reaction', message_id: messageId, emoji, action: options.remove === true ? 'remove' : 'add' },
      'reaction',
    );
    const sender = await this.#d.sender();
    return sender.sealAndPost(conversationId, payload, { eventType: 'reaction.update' }, (wire) =>
      this.#d.rest().request({
        method: ARTIFACT_ROUTES.react.method,
        path: routePath(ARTIFACT_ROUTES.react, { id: conversationId }),
        body: { message_id: messageId, wire_envelope: wire },
        schema: ReactAnswerSchema,
      }),
    );
  }
}
