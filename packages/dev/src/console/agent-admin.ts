/**
 * The console's agent administration: **Add agent** (`POST /agents`) and the
 * selected agent's token buttons (**Regenerate**, **Emergency regenerate**,
 * **Revoke**), each behind an inline confirmation.
 *
 * A token the service answers with is never put in the DOM, a URL, a console
 * line or `localStorage`: it is handed over as a downloaded env file (a
 * `Blob`, its object URL revoked right after the click) and, on request,
 * copied to the clipboard. It stays in this module's memory until the next
 * hand-over or **Forget token**. The token paths are the interface's own
 * (`POST /agents/:id/token/regenerate`, `DELETE /agents/:id/token`).
 *
 * @module
 */
import { routePath, SERVICE_ROUTES } from 'agent-messaging-sdk/protocol';
import { ConsoleCallError, type ConsoleCall } from './api.js';
import { agentEnvFile, envFileName } from './env-file.js';

/** An agent as `POST /agents` answers it (the token aside). */
export interface CreatedAgent {
  readonly agent_id: string;
  readonly name?: string;
}

/** What the module needs from the page. */
export interface AgentAdminDeps {
  /** Calls the server as the dev user (`show`: print the `curl` line first). */
  call<T>(c: ConsoleCall, show?: boolean): Promise<T>;
  /** The agent selected in the list, if any. */
  selectedAgentId(): string | undefined;
  /** The name of a listed agent. */
  agentName(agentId: string): string | undefined;
  /** A new agent exists: list it and select it. */
  agentCreated(agent: CreatedAgent): Promise<void>;
  /** Redraws the service view of the selected agent. */
  refreshService(): Promise<void>;
  /** Runs an action, showing its error in the page. */
  run(fn: () => Promise<void>): void;
}

/** A token being handed over (memory only). */
interface Handover {
  readonly agentId: string;
  readonly fileName: string;
  readonly token: string;
}

/** `POST /agents/:id/token/regenerate`'s answer (wire names). */
interface Regenerated {
  readonly agent_id: string;
  readonly token: string;
  readonly previous_token_valid_until: string | null;
  readonly regenerations_left: number;
}

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

/** The command lines that start a bot (the README's `bot.mjs`) with the downloaded file. */
export function runLines(fileName: string): string {
  return [
    `node --env-file=${fileName} bot.mjs`,
    `npx tsx --env-file=${fileName} bot.mts   # the README's bot, as TypeScript`,
  ].join('\n');
}

/** Saves `text` as a download named `fileName` (object URL revoked right after the click). */
export function downloadText(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.hidden = true;
  document.body.append(a);
  try {
    a.click();
  } finally {
    a.remove();
    URL.revokeObjectURL(url);
  }
}

/** A refused call, said plainly; a rate limit says when to retry. */
export function describeFailure(err: unknown): string {
  if (!(err instanceof ConsoleCallError)) return (err as Error).message;
  if (err.code === 'TOKEN_ROTATION_RATE_LIMITED') {
    const seconds = Number(err.params['retry_after']);
    const wait = Number.isFinite(seconds)
      ? ` Retry after ${formatWait(seconds)} (Retry-After: ${seconds} s).`
      : '';
    return `TOKEN_ROTATION_RATE_LIMITED: at most 5 token regenerations per 24 h for an agent.${wait}`;
  }
  return err.message;
}

/** `1 h 5 min`, `42 s`. */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const h = Math.floor(seconds / 3600);
  const min = Math.ceil((seconds % 3600) / 60);
  return h === 0 ? `${min} min` : `${h} h ${min} min`;
}

type TokenAction = 'regenerate' | 'emergency' | 'revoke';

const QUESTIONS: Record<TokenAction, string> = {
  regenerate: 'Regenerate the token of {name}? The old token keeps working for 7 days (grace).',
  emergency: 'Emergency regenerate the token of {name}? The old token stops working at once.',
  revoke:
    'Revoke the token of {name}? The agent has no token after this, and all its connections are closed.',
};

/** Wires the agent form, the token buttons and the hand-over box of the page. */
export function startAgentAdmin(deps: AgentAdminDeps): void {
  let handover: Handover | undefined;
  let pending: { action: TokenAction; agentId: string } | undefined;

  const note = (text: string): void => {
    $('token-note').textContent = text;
  };

  function handOver(h: Handover, text: string): void {
    handover = h;
    $('token-handover-text').textContent = text;
    $('token-run').textContent = runLines(h.fileName);
    $('token-handover').hidden = false;
    $('token-handover').dataset['agentId'] = h.agentId;
    $('token-handover').dataset['fileName'] = h.fileName;
    download();
  }

  function download(): void {
    if (handover === undefined) return;
    const env = agentEnvFile({ baseUrl: location.origin, agentId: handover.agentId, token: handover.token });
    downloadText(handover.fileName, env);
  }

  async function copy(): Promise<void> {
    if (handover === undefined) return;
    try {
      await navigator.clipboard.writeText(handover.token);
      note('token copied to the clipboard');
    } catch {
      note('the browser refused the clipboard: use the downloaded env file instead');
    }
  }

  function forget(): void {
    handover = undefined;
    $('token-handover').hidden = true;
    delete $('token-handover').dataset['agentId'];
    note('token forgotten by this page');
  }

  async function addAgent(): Promise<void> {
    const input = $<HTMLInputElement>('agent-name');
    const name = input.value.trim();
    if (name === '') throw new Error('Type a name for the agent.');
    const created = await deps.call<CreatedAgent & { token: string }>(
      { method: 'POST', path: routePath(SERVICE_ROUTES.createAgent), auth: true, body: { name } },
      true,
    );
    input.value = '';
    const fileName = envFileName(created.name ?? name);
    handOver(
      { agentId: created.agent_id, fileName, token: created.token },
      `Agent ${created.name ?? name} (${created.agent_id}) created. Its token is in ${fileName} (downloaded; it is not shown here).`,
    );
    await deps.agentCreated({ agent_id: created.agent_id, name: created.name ?? name });
  }

  function ask(action: TokenAction): void {
    const agentId = deps.selectedAgentId();
    if (agentId === undefined) throw new Error('Pick an agent first.');
    pending = { action, agentId };
    const name = deps.agentName(agentId) ?? agentId;
    $('token-confirm-text').textContent = QUESTIONS[action].replace('{name}', name);
    $('token-confirm').hidden = false;
    $('token-confirm').dataset['action'] = action;
  }

  function cancel(): void {
    pending = undefined;
    $('token-confirm').hidden = true;
  }

  async function confirm(): Promise<void> {
    const p = pending;
    cancel();
    if (p === undefined) return;
    try {
      if (p.action === 'revoke') await revoke(p.agentId);
      else await regenerate(p.agentId, p.action === 'emergency');
    } catch (err) {
      throw new Error(describeFailure(err), { cause: err });
    } finally {
      await deps.refreshService();
    }
  }

  async function regenerate(agentId: string, emergency: boolean): Promise<void> {
    const path = `/agents/${encodeURIComponent(agentId)}/token/regenerate`;
    const r = await deps.call<Regenerated>({ method: 'POST', path, auth: true, body: { emergency } }, true);
    const name = deps.agentName(agentId) ?? agentId;
    const fileName = envFileName(name);
    const old =
      r.previous_token_valid_until === null
        ? 'The old token stopped working at once.'
        : `The old token keeps working until ${r.previous_token_valid_until} (grace).`;
    handOver(
      { agentId, fileName, token: r.token },
      `New token of ${name} in ${fileName} (downloaded; it is not shown here). ${old} ${r.regenerations_left} regenerations left in 24 h.`,
    );
  }

  async function revoke(agentId: string): Promise<void> {
    const path = `/agents/${encodeURIComponent(agentId)}/token`;
    const r = await deps.call<{ disconnected: number }>({ method: 'DELETE', path, auth: true }, true);
    if (handover?.agentId === agentId) forget();
    note(`token of ${deps.agentName(agentId) ?? agentId} revoked; ${r.disconnected} connection(s) closed`);
  }

  $('add-agent').addEventListener('submit', (e) => {
    e.preventDefault();
    deps.run(addAgent);
  });
  $('token-download').addEventListener('click', () => deps.run(async () => download()));
  $('token-copy').addEventListener('click', () => deps.run(copy));
  $('token-forget').addEventListener('click', forget);
  for (const action of ['regenerate', 'emergency', 'revoke'] as const) {
    $(`token-${action}`).addEventListener('click', () => deps.run(async () => ask(action)));
  }
  $('token-confirm-yes').addEventListener('click', () => deps.run(confirm));
  $('token-confirm-no').addEventListener('click', cancel);
}
