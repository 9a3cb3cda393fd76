/**
 * The human side of artifacts and reactions: a received artifact message
 * becomes an `artifact` event with `approve(data)` / `deny(reason)`; a
 * received `reaction.update` becomes a `reaction` event (not a `message`).
 *
 * ```ts
 * client.on('artifact', async (a) => {
 *   if (a.content.kind === 'confirm') await a.approve();
 *   else await a.deny('user_rejected');
 * });
 * ```
 *
 * Answers are sealed to the conversation's members as `artifact_response`
 * (the service sees only which artifact and revision is answered).
 *
 * @module
 */
import type { ArtifactDeniedReason } from '../core/errors/codes.js';
import { ValidationError } from '../core/errors/validation-error.js';
import {
  answerDataProblems,
  ArtifactPayloadSchema,
  ArtifactViewSchema,
  HUMAN_DENIED_REASONS,
  ReactionPayloadSchema,
  type ArtifactAnswerPayload,
  type ArtifactContent,
  type ArtifactSensitivity,
  type ArtifactState,
  type HumanDeniedReason,
} from '../core/protocol/artifacts.js';
import { ARTIFACT_ROUTES, routePath } from '../core/protocol/service-names.js';
import type { Logger } from '../core/logger.js';
import type { MessageSender } from '../messaging/sender.js';
import type { RestClient } from '../transport/rest/client.js';
import type { ReceivedMessage } from './open-message.js';

/** What the service said to an answer. */
export interface ArtifactAnswerResult {
  /** False when the artifact was already closed (denied by the service, expired): the answer was dropped. */
  readonly accepted: boolean;
  /** The artifact's state now. */
  readonly state: ArtifactState;
  /** Why it was denied, when it was (e.g. `tool_timeout` for an answer that came too late). */
  readonly reason: ArtifactDeniedReason | null;
}

/** An artifact the user received (opened and checked). */
export interface ReceivedArtifact {
  readonly artifactId: string;
  readonly revision: number;
  readonly conversationId: string;
  /** The agent that sent it (signed). */
  readonly senderId: string;
  readonly forwardable: boolean;
  readonly sensitivity: ArtifactSensitivity;
  /** What it asks. */
  readonly content: ArtifactContent;
  /** The message that carried it (forward it with `client.forward(artifact.message, …)`). */
  readonly message: ReceivedMessage;
  /**
   * Approves, with data (form values, a tool's result; none for a confirmation).
   *
   * @throws {@link ValidationError} when form data does not fit the form;
   * {@link ServiceError} `ARTIFACT_REVISION_CONFLICT` when a newer revision exists (answer that one).
   */
  approve(data?: Readonly<Record<string, unknown>>): Promise<ArtifactAnswerResult>;
  /**
   * Denies, with the human's reason.
   *
   * @throws {@link ServiceError} `ARTIFACT_REVISION_CONFLICT` when a newer revision exists.
   */
  deny(reason?: HumanDeniedReason): Promise<ArtifactAnswerResult>;
}

/** A reaction the user received (opened and checked). */
export interface ReceivedReaction {
  readonly conversationId: string;
  /** Who reacted (signed). */
  readonly senderId: string;
  /** The message reacted to. */
  readonly messageId: string;
  readonly emoji: string;
  readonly action: 'add' | 'remove';
  readonly createdAt: string;
}

/** What {@link UserArtifacts} needs. */
export interface UserArtifactsDeps {
  readonly rest: () => RestClient;
  readonly sender: () => MessageSender;
  readonly logger: Logger;
  readonly emitArtifact: (artifact: ReceivedArtifact) => void;
  readonly emitReaction: (reaction: ReceivedReaction) => void;
}

/** Artifacts on the user's side: `client.artifacts`. */
export class UserArtifacts {
  readonly #d: UserArtifactsDeps;

  /** @internal Built by the UserClient. */
  constructor(deps: UserArtifactsDeps) {
    this.#d = deps;
  }

  /**
   * The artifact a message carries (e.g. one read with `client.messages()`),
   * with its answer helpers; undefined for any other message.
   */
  from(message: ReceivedMessage): ReceivedArtifact | undefined {
    if (message.payload['type'] !== 'artifact') return undefined;
    const parsed = ArtifactPayloadSchema.safeParse(message.payload);
    if (!parsed.success) {
      this.#d.logger.warn('an artifact message does not fit the artifact payload', {
        conversationId: message.conversationId,
      });
      return undefined;
    }
    const p = parsed.data;
    const answer = (body: ArtifactAnswerPayload) => this.#answer(message.conversationId, body);
    const base = { type: 'artifact_response', artifact_id: p.artifact_id, revision: p.revision } as const;
    return {
      artifactId: p.artifact_id,
      revision: p.revision,
      conversationId: message.conversationId,
      senderId: message.senderId,
      forwardable: p.forwardable,
      sensitivity: p.sensitivity,
      content: p.content,
      message,
      approve: (data = {}) => {
        const problems = answerDataProblems(p.content, data);
        if (problems.length > 0) {
          return Promise.reject(
            new ValidationError({
              message: 'The data does not fit the form.',
              issues: problems.map((m) => ({ path: ['data'], message: m })),
            }),
          );
        }
        return answer({ ...base, status: 'approved', data: { ...data } });
      },
      deny: (reason = 'user_rejected') => {
        if (!(HUMAN_DENIED_REASONS as readonly string[]).includes(reason)) {
          return Promise.reject(
            new ValidationError({
              message: `A human denies with ${HUMAN_DENIED_REASONS.join(' or ')}.`,
              issues: [{ path: ['reason'], message: 'not a human reason' }],
            }),
          );
        }
        return answer({ ...base, status: 'denied', reason });
      },
    };
  }

  /** @internal Routes a live delivery; true when it was a reaction (not a message). */
  received(message: ReceivedMessage): boolean {
    if (message.event === 'reaction.update') {
      const parsed = ReactionPayloadSchema.safeParse(message.payload);
      if (parsed.success) {
        this.#d.emitReaction({
          conversationId: message.conversationId,
          senderId: message.senderId,
          messageId: parsed.data.message_id,
          emoji: parsed.data.emoji,
          action: parsed.data.action,
          createdAt: message.createdAt,
        });
      } else {
        this.#d.logger.warn('a reaction does not fit the reaction payload', {
          conversationId: message.conversationId,
        });
      }
      return true;
    }
    const artifact = this.from(message);
    if (artifact !== undefined) this.#d.emitArtifact(artifact);
    return false;
  }

  async #answer(conversationId: string, body: ArtifactAnswerPayload): Promise<ArtifactAnswerResult> {
    const view = await this.#d
      .sender()
      .sealAndPost(conversationId, body, { eventType: 'artifact_response' }, (wire) =>
        this.#d.rest().request({
          method: ARTIFACT_ROUTES.answerArtifact.method,
          path: routePath(ARTIFACT_ROUTES.answerArtifact, {
            id: conversationId,
            artifact_id: body.artifact_id,
          }),
          body: { revision: body.revision, wire_envelope: wire },
          schema: ArtifactViewSchema.extend({ accepted: ArtifactViewSchema.shape.forwardable }),
        }),
      );
    return { accepted: view.accepted, state: view.state, reason: view.reason };
  }
}
