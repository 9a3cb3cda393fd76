/**
 * The reference server's capability manifests, per agent: every proposed
 * revision with its status, the head version (the newest proposed), the
 * accepted one and the pending one. In memory, beside the store (one
 * instance per server context), since manifests have no other backend yet.
 *
 * Versions are integers counted per agent from 1. A proposal must name the
 * head it was based on (`based_on_version`, 0 before the first); a new
 * proposal while another is pending supersedes it.
 *
 * @module
 */
import type { CapabilityManifest, ManifestRevisionStatus } from 'agent-messaging-sdk/protocol';

/** One proposed revision. */
export interface ManifestRevisionRecord {
  readonly version: number;
  readonly manifest: CapabilityManifest;
  readonly sizeBytes: number;
  readonly sizeWarning: boolean;
  status: ManifestRevisionStatus;
  readonly submittedAtMs: number;
  decidedAtMs: number | undefined;
}

/** An agent's manifests. */
export interface AgentManifests {
  head: number;
  current: ManifestRevisionRecord | undefined;
  pending: ManifestRevisionRecord | undefined;
  lastDecided: ManifestRevisionRecord | undefined;
}

const byContext = new WeakMap<object, Map<string, AgentManifests>>();

/** The manifests of `agentId` on the server whose context (or store) is `owner`. */
export function manifestsOf(owner: object, agentId: string): AgentManifests {
  let all = byContext.get(owner);
  if (all === undefined) {
    all = new Map();
    byContext.set(owner, all);
  }
  let m = all.get(agentId);
  if (m === undefined) {
    m = { head: 0, current: undefined, pending: undefined, lastDecided: undefined };
    all.set(agentId, m);
  }
  return m;
}

function iso(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

/** Wire view of a revision. */
export function revisionView(r: ManifestRevisionRecord) {
  return {
    version: r.version,
    manifest: r.manifest,
    size_bytes: r.sizeBytes,
    size_warning: r.sizeWarning,
    status: r.status,
    submitted_at: new Date(r.submittedAtMs).toISOString(),
    decided_at: iso(r.decidedAtMs),
  };
}

/** Wire view of an agent's manifest state. */
export function manifestStateView(agentId: string, m: AgentManifests) {
  return {
    agent_id: agentId,
    head_version: m.head,
    current: m.current === undefined ? null : revisionView(m.current),
    pending: m.pending === undefined ? null : revisionView(m.pending),
    last_decided: m.lastDecided === undefined ? null : revisionView(m.lastDecided),
  };
}
