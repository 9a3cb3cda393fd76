/**
 * Agent tokens: issuing (`hsk_` + 40 base62 characters from the CSPRNG,
 * stored only as a bcrypt hash) and checking them fast.
 *
 * A bcrypt check costs ~65 ms at cost 10, so a token is verified with bcrypt
 * once; after that the SHA-256 digest of the verified token (never the
 * token) is remembered in memory, mapped to its agent and token record. Every
 * hit is re-checked against the agent's current token list, so rotation,
 * revocation and the end of a grace period take effect at once; entries of
 * dropped tokens are also forgotten explicitly.
 *
 * A token seen for the first time is compared with the bcrypt hashes of the
 * agent the request names (the `:id` path parameter, the `agent_id` of the
 * WebSocket `auth` frame). Without such a hint every live token hash is tried,
 * at most {@link MAX_SCAN_HASHES} of them.
 *
 * @module
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { Clock } from 'agent-messaging-sdk/protocol';
import { generateAgentToken, isAgentToken } from 'agent-messaging-sdk/protocol';
import type { AgentRecord, AgentStore, AgentTokenRecord } from '../store/agent-types.js';

/** Upper bound of bcrypt comparisons for a token checked without an agent hint. */
export const MAX_SCAN_HASHES = 256;

/** Which agent and token record a token is. */
export interface TokenMatch {
  readonly agentId: string;
  readonly tokenId: string;
}

/** Issues and checks agent tokens. */
export interface AgentTokenService {
  /** A new token (shown once) and its record (bcrypt hash only). */
  issue(): Promise<{ readonly token: string; readonly record: AgentTokenRecord }>;
  /** The agent and token record of `token`, or undefined when it is not a live token. */
  check(token: string, agentHint: string | undefined): Promise<TokenMatch | undefined>;
  /** Forgets remembered digests of the agent's tokens (all, or those in `tokenIds`). */
  forget(agentId: string, tokenIds?: readonly string[]): void;
  /** How many bcrypt comparisons ran (for tests of the fast path). */
  readonly bcryptChecks: number;
}

/** True when the token record is usable at `nowMs`. */
export function isLiveToken(token: AgentTokenRecord, nowMs: number): boolean {
  return token.validUntilMs === undefined || nowMs < token.validUntilMs;
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Creates the token service over the agent store. */
export function createAgentTokenService(store: AgentStore, clock: Clock, cost: number): AgentTokenService {
  const verified = new Map<string, TokenMatch>();
  let bcryptChecks = 0;

  const live = (agent: AgentRecord | undefined, tokenId: string): boolean => {
    const t = agent?.tokens.find((x) => x.tokenId === tokenId);
    return t !== undefined && isLiveToken(t, clock.now());
  };

  async function compareAll(token: string, agents: readonly AgentRecord[]): Promise<TokenMatch | undefined> {
    let budget = MAX_SCAN_HASHES;
    for (const agent of agents) {
      for (const t of agent.tokens) {
        if (!isLiveToken(t, clock.now()) || budget-- <= 0) continue;
        bcryptChecks += 1;
        if (await bcrypt.compare(token, t.hash)) return { agentId: agent.agentId, tokenId: t.tokenId };
      }
    }
    return undefined;
  }

  return {
    async issue() {
      const token = generateAgentToken((n) => new Uint8Array(randomBytes(n)));
      const hash = await bcrypt.hash(token, cost);
      return {
        token,
        record: { tokenId: randomUUID(), hash, createdAtMs: clock.now(), validUntilMs: undefined },
      };
    },
    async check(token, agentHint) {
      if (!isAgentToken(token)) return undefined;
      const digest = digestOf(token);
      const known = verified.get(digest);
      if (known !== undefined) {
        if (live(await store.get(known.agentId), known.tokenId)) return known;
        verified.delete(digest);
        return undefined;
      }
      const candidates =
        agentHint === undefined
          ? await store.all()
          : [await store.get(agentHint)].filter((a) => a !== undefined);
      const match = await compareAll(token, candidates);
      // The store may have changed during the (slow) comparison: check again before remembering.
      if (match === undefined || !live(await store.get(match.agentId), match.tokenId)) return undefined;
      verified.set(digest, match);
      return match;
    },
    forget(agentId, tokenIds) {
      for (const [digest, m] of verified) {
        if (m.agentId === agentId && (tokenIds === undefined || tokenIds.includes(m.tokenId))) {
          verified.delete(digest);
        }
      }
    },
    get bcryptChecks() {
      return bcryptChecks;
    },
  };
}
