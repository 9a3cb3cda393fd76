/**
 * Outstanding key challenges (`GET /agents/:id/keys/challenge`): single use,
 * bound to one agent, valid {@link KEY_CHALLENGE_TTL_MS} on the server's
 * clock, at most {@link MAX_CHALLENGES_PER_AGENT} open per agent (the oldest
 * is dropped).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from 'agent-messaging-sdk/protocol';
import { toBase64 } from 'agent-messaging-sdk/protocol';
import { defaultSyncBackend } from 'agent-messaging-sdk/protocol';
import { KEY_CHALLENGE_TTL_MS, type IssuedChallenge } from './key-proof.js';

/** Open challenges kept per agent. */
export const MAX_CHALLENGES_PER_AGENT = 8;

/** The challenges. */
export class KeyChallenges {
  readonly #clock: Clock;
  readonly #open = new Map<string, IssuedChallenge>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Issues a challenge for `agentId`. */
  issue(agentId: string): IssuedChallenge & { readonly key: string } {
    const now = this.#clock.now();
    this.#prune(agentId, now);
    const backend = defaultSyncBackend();
    const privateKey = new Uint8Array(randomBytes(32));
    const issued: IssuedChallenge = {
      agentId,
      challenge: new Uint8Array(randomBytes(32)),
      serverKeyPair: { privateKey, publicKey: backend.x25519PublicKey(privateKey) },
      expiresAtMs: now + KEY_CHALLENGE_TTL_MS,
    };
    const key = toBase64(issued.challenge);
    this.#open.set(key, issued);
    return { ...issued, key };
  }

  /** Takes (single use) the challenge `key` of `agentId`; undefined when unknown, foreign or expired. */
  take(agentId: string, key: string): IssuedChallenge | undefined {
    const issued = this.#open.get(key);
    if (issued === undefined || issued.agentId !== agentId) return undefined;
    this.#open.delete(key);
    return issued.expiresAtMs > this.#clock.now() ? issued : undefined;
  }

  #prune(agentId: string, now: number): void {
    const mine: string[] = [];
    for (const [key, c] of this.#open) {
      if (c.expiresAtMs <= now) this.#open.delete(key);
      else if (c.agentId === agentId) mine.push(key);
    }
    while (mine.length >= MAX_CHALLENGES_PER_AGENT) this.#open.delete(mine.shift()!);
  }
}
