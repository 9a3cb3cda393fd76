/**
 * A reference server's data directory (`ams serve --dev --data <dir>`,
 * option `dataDir`): the journal store (`store/journal.ts`) and the system
 * sender's keys (`system-keys.json`, mode 0600: the dev server's own private
 * keys, so that agents and users that pinned them keep trusting its service
 * events after a restart).
 *
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  fromBase64,
  generateKeys,
  keysFromPrivate,
  toBase64,
  type AgentKeys,
} from 'agent-messaging-sdk/protocol';
import type { PersistedState } from './create-context.js';
import { openJournalStore, prepareDataDir } from './store/journal.js';
import type { Store } from './store/types.js';

/** The system keys' file name inside the data directory. */
export const SYSTEM_KEYS_FILE = 'system-keys.json';

/** Opens `dir`: the store it keeps and what the context needs back. */
export async function openDataDir(dir: string): Promise<{ store: Store; persisted: PersistedState }> {
  prepareDataDir(dir);
  const store = await openJournalStore(dir);
  const agentIds = (await store.agents.all()).map((a) => a.agentId);
  return { store, persisted: { agentIds, systemKeys: systemKeys(join(dir, SYSTEM_KEYS_FILE)) } };
}

function systemKeys(file: string): AgentKeys {
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = undefined;
  }
  if (text !== undefined) {
    const saved = JSON.parse(text) as { encryption_private?: unknown; signing_private?: unknown };
    const encryption =
      typeof saved.encryption_private === 'string' ? fromBase64(saved.encryption_private) : undefined;
    const signing = typeof saved.signing_private === 'string' ? fromBase64(saved.signing_private) : undefined;
    if (encryption === undefined || signing === undefined) throw new Error(`${file}: not a system key file`);
    return keysFromPrivate(encryption, signing);
  }
  const keys = generateKeys();
  const body = {
    encryption_private: toBase64(keys.encryption.privateKey),
    signing_private: toBase64(keys.signing.privateKey),
  };
  writeFileSync(file, `${JSON.stringify(body)}\n`, { mode: 0o600, flag: 'wx' });
  return keys;
}
