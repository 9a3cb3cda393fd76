/**
 * The owner's side of capability manifests and data grants:
 * `client.manifests` (see pending manifest changes of the user's agents,
 * accept or reject them) and `client.grants` (see grant requests, grant or
 * deny them, revoke a grant).
 *
 * @module
 */
import { z } from 'zod';
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

  /** @internal Created by the UserClient (`client.manifests`). */
  constructor(rest: () => RestClient) {
    this.#rest = rest;
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

  #decide(agentId: string, version: number, decision: ManifestDecision): Promise<ManifestRevision> {
    return this.#rest().post(
      routePath(SERVICE_ROUTES.decideManifest, { id: agentId }),
      { version, decision },
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

  /** @internal Created by the UserClient (`client.grants`). */
  constructor(rest: () => RestClient) {
    this.#rest = rest;
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
   * Grants a pending request, for the window asked or a shorter `windowSeconds`.
   *
   * @throws {@link ServiceError} `NOT_FOUND`, `VALIDATION_ERROR` (not pending; window longer than asked).
   */
  grant(grantId: string, options: { windowSeconds?: number } = {}): Promise<GrantInfo> {
    return this.#decide(grantId, {
      decision: 'granted',
      ...(options.windowSeconds === undefined ? {} : { window_seconds: options.windowSeconds }),
    });
  }

  /** Denies a pending request: the agent's reads answer `GRANT_DENIED`. */
  deny(grantId: string): Promise<GrantInfo> {
    return this.#decide(grantId, { decision: 'denied' });
  }

  /**
   * Revokes a grant (idempotent): the agent's reads answer `GRANT_REVOKED` and it gets `grant.revoked`.
   *
   * @throws {@link ServiceError} `NOT_FOUND`, `VALIDATION_ERROR` (never granted).
   */
  async revoke(grantId: string): Promise<GrantInfo> {
    const path = routePath(SERVICE_ROUTES.revokeGrant, { grant_id: grantId });
    return grantInfo(await this.#rest().delete(path, { schema: GrantViewSchema }));
  }

  async #decide(grantId: string, body: Record<string, unknown>): Promise<GrantInfo> {
    const path = routePath(SERVICE_ROUTES.decideGrant, { grant_id: grantId });
    return grantInfo(await this.#rest().post(path, body, { schema: GrantViewSchema }));
  }
}
