/**
 * What the selected agent asks of its owner, with the owner's buttons: the
 * pending capability-manifest change (Accept / Reject) and the agent's data
 * grant requests (Grant / Deny) and live grants (Revoke). Read with the
 * user's own API (`GET /agents/:id/manifest` as the owner, `GET /grants`);
 * each decision is the user's request, shown as its `curl` line.
 *
 * @module
 */
import {
  manifestSha256,
  routePath,
  SERVICE_ROUTES,
  type DecisionStatement,
  type SignedDecision,
} from 'agent-messaging-sdk/protocol';
import type { ConsoleCall } from './api.js';
import { button } from './dom.js';

/** One manifest revision (wire names). */
export interface ManifestRevisionView {
  readonly version: number;
  readonly manifest: unknown;
  readonly size_bytes: number;
  readonly size_warning: boolean;
  readonly status: string;
}

/** An agent's manifest state (wire names). */
export interface ManifestStateView {
  readonly head_version: number;
  readonly current: ManifestRevisionView | null;
  readonly pending: ManifestRevisionView | null;
}

/** One grant (wire names). */
export interface GrantView {
  readonly grant_id: string;
  readonly agent_id: string;
  readonly conversation_id: string;
  readonly scope: string;
  readonly reason: string;
  readonly status: string;
  readonly window_seconds: number;
  readonly expires_at: string | null;
}

/** What the requests panel needs from the page. */
export interface RequestDeps {
  call<T>(c: ConsoleCall, show?: boolean): Promise<T>;
  say(text: string): void;
  /** Runs a button's action, showing what it throws. */
  run(fn: () => Promise<void>): void;
  /** Re-reads the service side (this panel included) after a decision. */
  refresh(): Promise<void>;
  /** The signed-in user's id. */
  userId(): string;
  /** Signs a decision statement with the user's Ed25519 key (the agent verifies it). */
  sign(statement: DecisionStatement): Promise<SignedDecision>;
}

function line(text: string, ...buttons: HTMLButtonElement[]): HTMLLIElement {
  const li = document.createElement('li');
  const span = document.createElement('span');
  span.textContent = text;
  li.append(span, ...buttons);
  return li;
}

/** The manifest revision as readable JSON, folded. */
function manifestDetail(r: ManifestRevisionView): HTMLDetailsElement {
  const d = document.createElement('details');
  const s = document.createElement('summary');
  s.textContent = `manifest v${r.version} (${r.size_bytes} bytes${r.size_warning ? ', over 64 KB' : ''})`;
  const pre = document.createElement('pre');
  pre.textContent = JSON.stringify(r.manifest, null, 2);
  d.append(s, pre);
  return d;
}

/**
 * Reads the agent's manifest state and the user's grants of this agent, and
 * draws them in `list`; a read that fails is shown in the list (the rest of
 * the service side still renders).
 */
export async function renderRequests(list: HTMLElement, agentId: string, d: RequestDeps): Promise<void> {
  try {
    list.replaceChildren(...(await requestItems(agentId, d)));
  } catch (err) {
    list.replaceChildren(line(`could not read the requests: ${(err as Error).message}`));
  }
}

async function requestItems(agentId: string, d: RequestDeps): Promise<HTMLElement[]> {
  const manifest = await d.call<ManifestStateView>({
    method: 'GET',
    path: routePath(SERVICE_ROUTES.getManifest, { id: agentId }),
    auth: true,
  });
  const grants = (
    await d.call<GrantView[]>({ method: 'GET', path: routePath(SERVICE_ROUTES.userGrants), auth: true })
  ).filter((g) => g.agent_id === agentId && (g.status === 'pending' || g.status === 'granted'));
  const items: HTMLElement[] = [];
  const current = manifest.current === null ? 'none accepted' : `v${manifest.current.version} accepted`;
  const pending = manifest.pending;
  if (pending === null) {
    items.push(line(`manifest: ${current}, no change pending`));
  } else {
    const decide = (decision: 'accepted' | 'rejected') => () =>
      d.run(() => decideManifest(d, agentId, pending, decision));
    const li = line(
      `manifest: ${current}; v${pending.version} pending`,
      button('Accept', 'accept-manifest', decide('accepted')),
      button('Reject', 'reject-manifest', decide('rejected')),
    );
    li.dataset['manifestVersion'] = String(pending.version);
    li.append(manifestDetail(pending));
    items.push(li);
  }
  for (const g of grants) items.push(grantLine(g, d));
  return items;
}

function grantLine(g: GrantView, d: RequestDeps): HTMLLIElement {
  const act = (fn: () => Promise<void>) => () => d.run(fn);
  const li =
    g.status === 'pending'
      ? line(
          `grant ${g.scope} for ${Math.round(g.window_seconds / 60)} min asked: "${g.reason}"`,
          button(
            'Grant',
            'grant',
            act(() => decideGrant(d, g, 'granted')),
          ),
          button(
            'Deny',
            'deny-grant',
            act(() => decideGrant(d, g, 'denied')),
          ),
        )
      : line(
          `grant ${g.scope} granted until ${g.expires_at?.slice(11, 19) ?? '?'}`,
          button(
            'Revoke',
            'revoke-grant',
            act(() => revokeGrant(d, g)),
          ),
        );
  li.dataset['grantId'] = g.grant_id;
  li.dataset['grantStatus'] = g.status;
  return li;
}

async function decideManifest(
  d: RequestDeps,
  agentId: string,
  pending: ManifestRevisionView,
  decision: 'accepted' | 'rejected',
): Promise<void> {
  const version = pending.version;
  const signed = await d.sign({
    v: 1,
    kind: decision === 'accepted' ? 'manifest.accepted' : 'manifest.rejected',
    agent_id: agentId,
    signer_id: d.userId(),
    decided_at: new Date().toISOString(),
    version,
    manifest_sha256: manifestSha256(pending.manifest),
  });
  await d.call(
    {
      method: 'POST',
      path: routePath(SERVICE_ROUTES.decideManifest, { id: agentId }),
      auth: true,
      body: { version, decision, signed_decision: signed },
    },
    true,
  );
  d.say(`manifest v${version} ${decision}`);
  await d.refresh();
}

/** The user's signed statement about grant `g`. */
function grantStatement(
  d: RequestDeps,
  g: GrantView,
  kind: 'grant.granted' | 'grant.denied' | 'grant.revoked',
): Promise<SignedDecision> {
  return d.sign({
    v: 1,
    kind,
    agent_id: g.agent_id,
    signer_id: d.userId(),
    decided_at: new Date().toISOString(),
    grant_id: g.grant_id,
    conversation_id: g.conversation_id,
    scope: g.scope as 'profile.read',
    window_seconds: g.window_seconds,
  });
}

async function decideGrant(d: RequestDeps, g: GrantView, decision: 'granted' | 'denied'): Promise<void> {
  const signed = await grantStatement(d, g, `grant.${decision}`);
  await d.call(
    {
      method: 'POST',
      path: routePath(SERVICE_ROUTES.decideGrant, { grant_id: g.grant_id }),
      auth: true,
      body: { decision, signed_decision: signed },
    },
    true,
  );
  d.say(`grant ${g.scope} ${decision}`);
  await d.refresh();
}

async function revokeGrant(d: RequestDeps, g: GrantView): Promise<void> {
  const signed = await grantStatement(d, g, 'grant.revoked');
  await d.call(
    {
      method: 'DELETE',
      path: routePath(SERVICE_ROUTES.revokeGrant, { grant_id: g.grant_id }),
      auth: true,
      body: { signed_decision: signed },
    },
    true,
  );
  d.say(`grant ${g.scope} revoked`);
  await d.refresh();
}
