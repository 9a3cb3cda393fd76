/**
 * The owner's side of capability manifests and data grants:
 * `client.manifests` (see pending manifest changes of the user's agents,
 * accept or reject them) and `client.grants` (see grant requests, grant or
 * deny them, revoke a grant).
 *
 * @module
 */
import * as z from '../core/lazy-zod.js';
import {
  ManifestRevisionSchema,
  ManifestStateSchema,
  type ManifestDecision,
  type ManifestRevision,
  type ManifestState,
} from '../core/protocol/manifest.js';
import { GrantViewSchema, type GrantStatus } from '../core/protocol/grants.js';
import { routePath, SERVICE_ROUTES } from '../core/protocol/service-names.js';
import type { RestClient } from '../transport/rest/client.js';
import { grantInfo, type GrantInfo } from '../messaging/grant-info.js';
import { ServiceError } from '../core/errors/service-error.js';
import type {
  DecisionStatement,
  GrantDecisionStatement,
  SignedDecision,
} from '../core/protocol/decisions.js';
import { manifestSha256 } from '../crypto/decision.js';

/**
 * Signs the user's decisions with the user's Ed25519 key (built by the
 * UserClient; throws a `ConfigurationError` before sign-in or without a
 * signing key in memory).
 */
export interface DecisionSigner {
  /** The signed-in user's id. */
  readonly userId: string;
  /** Now, ms since the epoch (the client's clock): the statement's `decided_at`. */
  now(): number;
  /** Signs a statement. */
  sign(statement: DecisionStatement): Promise<SignedDecision>;
}

/**
 * The owner's review of agents' capability manifests.
 *
 * @example
 * ```ts
 * const state = await client.manifests.get(agentId);
 * if (state.pending) await client.manifests.accept(agentId, state.pending.version);
 * ```
 */
export class UserManifestReview {
  readonly #rest: () => RestClient;
  readonly #signer: () => DecisionSigner;

  /** @internal Created by the UserClient (`client.manifests`). */
  constructor(rest: () => RestClient, signer: () => DecisionSigner) {
    this.#rest = rest;
    this.#signer = signer;
  }

  /**
   * `GET /agents/:id/manifest`: the accepted manifest, the pending change, the head version.
   *
   * @throws {@link ServiceError} `AGENT_NOT_FOUND` (not the user's agent).
   */
  get(agentId: string): Promise<ManifestState> {
    return this.#rest().get(routePath(SERVICE_ROUTES.getManifest, { id: agentId }), {
      schema: ManifestStateSchema,
    });
  }

  /** The pending change of each of `agentIds` that has one. */
  async pending(agentIds: readonly string[]): Promise<{ agentId: string; revision: ManifestRevision }[]> {
    const out: { agentId: string; revision: ManifestRevision }[] = [];
    for (const agentId of agentIds) {
      const state = await this.get(agentId);
      if (state.pending !== null) out.push({ agentId, revision: state.pending });
    }
    return out;
  }

  /**
   * Accepts the pending change `version`; the agent gets `agent.capability_changed`.
   *
   * @throws {@link ServiceError} `MANIFEST_VERSION_CONFLICT` when `version` is no longer the pending one.
   */
  accept(agentId: string, version: number): Promise<ManifestRevision> {
    return this.#decide(agentId, version, 'accepted');
  }

  /**
   * Rejects the pending change `version`; the agent gets `agent.capability_changed`.
   *
   * @throws {@link ServiceError} `MANIFEST_VERSION_CONFLICT` when `version` is no longer the pending one.
   */
  reject(agentId: string, version: number): Promise<ManifestRevision> {
    return this.#decide(agentId, version, 'rejected');
  }

  /**
   * Reads the pending change (to sign the SHA-256 of the manifest the owner
   * decides on), signs the decision with the user's key and sends it: the
   * agent accepts `agent.capability_changed` only with this signature.
   */
  async #decide(agentId: string, version: number, decision: ManifestDecision): Promise<ManifestRevision> {
    const signer = this.#signer();
    const state = await this.get(agentId);
    if (state.pending?.version !== version) {
      throw new ServiceError({
        code: 'MANIFEST_VERSION_CONFLICT',
        status: 409,
        message: 'That version is not the pending change: re-read it.',
        params: { head_version: state.head_version, pending_version: state.pending?.version ?? null },
      });
    }
    const signed = await signer.sign({
      v: 1,
      kind: decision === 'accepted' ? 'manifest.accepted' : 'manifest.rejected',
      agent_id: agentId,
      signer_id: signer.userId,
      decided_at: new Date(signer.now()).toISOString(),
      version,
      manifest_sha256: manifestSha256(state.pending.manifest),
    });
    return this.#rest().post(
      routePath(SERVICE_ROUTES.decideManifest, { id: agentId }),
      { version, decision, signed_decision: signed },
      { schema: ManifestRevisionSchema },
    );
  }
}

/**
 * The user's data grants: requests from agents, decisions, revocations.
 *
 * @example
 * ```ts
 * for (const g of await client.grants.list({ status: 'pending' })) await client.grants.grant(g.grantId);
 * await client.grants.revoke(grantId); // the agent gets grant.revoked
 * ```
 */
export class UserGrants {
  readonly #rest: () => RestClient;
  readonly #signer: () => DecisionSigner;

  /** @internal Created by the UserClient (`client.grants`). */
  constructor(rest: () => RestClient, signer: () => DecisionSigner) {
    this.#rest = rest;
    this.#signer = signer;
  }

  /** `GET /grants`: the user's grant requests and grants, optionally of one status. */
  async list(options: { status?: GrantStatus } = {}): Promise<GrantInfo[]> {
    const views = await this.#rest().get(SERVICE_ROUTES.userGrants.path, {
      schema: z.array(GrantViewSchema),
      ...(options.status === undefined ? {} : { query: { status: options.status } }),
    });
    return views.map(grantInfo);
  }

  /**
   * Grants a pending request, for the window asked or a shorter `windowSeconds`,
   * with the user's signed statement of the decision (the agent verifies it).
   *
   * @throws {@link ServiceError} `NOT_FOUND`, `VALIDATION_ERROR` (not pending; window longer than asked).
   */
  async grant(grantId: string, options: { windowSeconds?: number } = {}): Promise<GrantInfo> {
    const g = await this.#find(grantId);
    const window = options.windowSeconds ?? g.windowSeconds;
    const signed = await this.#sign(g, 'grant.granted', window);
    return this.#decide(grantId, {
      decision: 'granted',
      ...(options.windowSeconds === undefined ? {} : { window_seconds: options.windowSeconds }),
      signed_decision: signed,
    });
  }

  /**
   * Denies a pending request: the agent's reads answer `GRANT_DENIED`.
   *
   * @throws {@link ServiceError} `NOT_FOUND`, `VALIDATION_ERROR` (not pending).
   */
  async deny(grantId: string): Promise<GrantInfo> {
    const g = await this.#find(grantId);
    const signed = await this.#sign(g, 'grant.denied', g.windowSeconds);
    return this.#decide(grantId, { decision: 'denied', signed_decision: signed });
  }

  /**
   * Revokes a grant (idempotent): the agent's reads answer `GRANT_REVOKED` and it gets `grant.revoked`.
   *
   * @throws {@link ServiceError} `NOT_FOUND`, `VALIDATION_ERROR` (never granted).
   */
  async revoke(grantId: string): Promise<GrantInfo> {
    const g = await this.#find(grantId);
    const signed = await this.#sign(g, 'grant.revoked', g.windowSeconds);
    const path = routePath(SERVICE_ROUTES.revokeGrant, { grant_id: grantId });
    return grantInfo(
      await this.#rest().request({
        method: SERVICE_ROUTES.revokeGrant.method,
        path,
        body: { signed_decision: signed },
        schema: GrantViewSchema,
      }),
    );
  }

  /** The grant as the service lists it to this user (what the user decides on). */
  async #find(grantId: string): Promise<GrantInfo> {
    const g = (await this.list()).find((x) => x.grantId === grantId);
    if (g === undefined) {
      throw new ServiceError({ code: 'NOT_FOUND', status: 404, message: 'No such grant.' });
    }
    return g;
  }

  /** The user's signed statement about `g` (agent, grant, conversation, scope, window, now). */
  #sign(g: GrantInfo, kind: GrantDecisionStatement['kind'], windowSeconds: number): Promise<SignedDecision> {
    const signer = this.#signer();
    return signer.sign({
      v: 1,
      kind,
      agent_id: g.agentId,
      signer_id: signer.userId,
      decided_at: new Date(signer.now()).toISOString(),
      grant_id: g.grantId,
      conversation_id: g.conversationId,
      scope: g.scope,
      window_seconds: windowSeconds,
    });
  }

  async #decide(grantId: string, body: Record<string, unknown>): Promise<GrantInfo> {
    const path = routePath(SERVICE_ROUTES.decideGrant, { grant_id: grantId });
    return grantInfo(await this.#rest().post(path, body, { schema: GrantViewSchema }));
  }
}
