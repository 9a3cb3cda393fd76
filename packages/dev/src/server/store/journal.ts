/**
 * The embedded store of `ams serve --dev --data <dir>`: the in-memory
 * {@link Store}, with every change to accounts, devices, key backups,
 * passkeys, agents and relations appended to a journal file and replayed at
 * the next start. No server to install, and the dev server keeps its users,
 * agents, tokens and keys across restarts.
 *
 * What is written is what the store holds: password, agent-token and
 * refresh-token **hashes** (never a plaintext token or password), public keys
 * and password-encrypted key backups. The file is created with mode 0600 in
 * a directory of mode 0700. Not kept: messages, groups, verification codes,
 * webhook registrations and delivery logs (a dev server's history, not its
 * identities).
 *
 * One JSON object a line: `{"s":"users","m":"create","a":[…]}`, a call
 * replayed as it was made (its inputs carry their own ids and times), or
 * `{"s":"agents","m":"$put","a":[record]}` for `agents.update`, whose change
 * is a function: the record it produced is written instead.
 *
 * @module
 */
import {
  appendFileSync,
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  truncateSync,
} from 'node:fs';
import { join } from 'node:path';
import type { AgentRecord } from './agent-types.js';
import { createMemoryStore } from './memory.js';
import type { Store } from './types.js';

/** The journal's file name inside the data directory. */
export const JOURNAL_FILE = 'store.jsonl';

/** The methods whose calls change persisted state, per sub-store. */
const REPLAYED: Readonly<Partial<Record<keyof Store, readonly string[]>>> = {
  users: ['create', 'recordLoginFailure', 'recordLoginSuccess', 'setPassword', 'markEmailVerified'],
  devices: ['signIn', 'rotateRefresh', 'remove', 'removeAll'],
  keyBackups: ['put'],
  passkeys: ['add', 'recordUse', 'remove'],
  agents: ['create'],
  conversations: ['establish', 'transition'],
};

interface Entry {
  readonly s: keyof Store;
  readonly m: string;
  readonly a: readonly unknown[];
}

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/** Creates `dir` (0700) and its journal file (0600) when missing; returns the file's path. */
export function prepareDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, JOURNAL_FILE);
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  return file;
}

/**
 * Opens the journal store in `dir`: replays the journal into a fresh
 * in-memory store, then journals every change made through the returned store.
 *
 * @throws `Error` naming the line when the journal is not one this server wrote.
 */
export async function openJournalStore(dir: string): Promise<Store> {
  const file = prepareDataDir(dir);
  const memory = createMemoryStore();
  let text = readFileSync(file, 'utf8');
  if (text !== '' && !text.endsWith('\n')) {
    // A line cut short by a crash: what it held was never acknowledged. Cut it off, so the next
    // change starts a line of its own.
    text = text.slice(0, text.lastIndexOf('\n') + 1);
    truncateSync(file, Buffer.byteLength(text));
  }
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let entry: Entry;
    try {
      entry = JSON.parse(line) as Entry;
    } catch {
      throw new Error(`${file}: line ${i + 1} is not JSON`);
    }
    await replay(memory, entry, `${file}: line ${i + 1}`);
  }
  const write = (entry: Entry): void => appendFileSync(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  return journaled(memory, write);
}

async function replay(store: Store, entry: Entry, where: string): Promise<void> {
  const target = store[entry.s] as unknown as Record<string, AnyMethod> | undefined;
  if (entry.s === 'agents' && entry.m === '$put') {
    const record = entry.a[0] as AgentRecord;
    const existing = await store.agents.get(record.agentId);
    if (existing === undefined) await store.agents.create(record, Number.MAX_SAFE_INTEGER);
    else await store.agents.update(record.agentId, () => record);
    return;
  }
  if (target === undefined || !(REPLAYED[entry.s] ?? []).includes(entry.m) || !Array.isArray(entry.a)) {
    throw new Error(`${where}: unknown entry ${entry.s}.${entry.m}`);
  }
  // agents.create is checked against the per-owner limit when made; replayed, it always fits.
  const args = entry.s === 'agents' && entry.m === 'create' ? [entry.a[0], Number.MAX_SAFE_INTEGER] : entry.a;
  await target[entry.m]!.apply(target, args);
}

/** `store`, with the calls of {@link REPLAYED} (and `agents.update`) written by `write` once they succeed. */
function journaled(store: Store, write: (entry: Entry) => void): Store {
  const wrapped: Record<string, unknown> = { ...store };
  for (const [name, methods] of Object.entries(REPLAYED) as [keyof Store, readonly string[]][]) {
    const sub = store[name] as unknown as Record<string, AnyMethod>;
    const copy: Record<string, AnyMethod> = {};
    for (const key of methodNames(sub)) {
      const method = sub[key]!;
      copy[key] = methods.includes(key)
        ? async (...args: unknown[]) => {
            const result = await method.apply(sub, args);
            write({ s: name, m: key, a: args });
            return result;
          }
        : (...args: unknown[]) => method.apply(sub, args);
    }
    wrapped[name] = copy;
  }
  const agents = wrapped['agents'] as Record<string, AnyMethod>;
  agents['update'] = async (...args: unknown[]) => {
    const result = (await store.agents.update(
      args[0] as string,
      args[1] as Parameters<Store['agents']['update']>[1],
    )) as AgentRecord | { refused: unknown } | undefined;
    if (result !== undefined && !('refused' in result)) write({ s: 'agents', m: '$put', a: [result] });
    return result;
  };
  return wrapped as unknown as Store;
}

/** The method names of `obj`: its own function properties and its class's methods. */
function methodNames(obj: object): string[] {
  const proto = Object.getPrototypeOf(obj) as object | null;
  const names = new Set(Object.keys(obj));
  if (proto !== null && proto !== Object.prototype) {
    for (const n of Object.getOwnPropertyNames(proto)) if (n !== 'constructor') names.add(n);
  }
  return [...names].filter((n) => typeof (obj as Record<string, unknown>)[n] === 'function');
}
