/**
 * `ams keys init`: creates an agent's keys (or loads the ones already stored)
 * and registers their public keys with the service, without starting a
 * dispatcher: the deploy-pipeline step before any copy of the agent starts.
 * Optionally writes the key ring as a secret (base64, mode 0600) for copies
 * that share no disk (`SecretKeyStore`). Never prints a private key.
 *
 * @module
 */
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  encodeKeyRing,
  FileKeyStore,
  keyFingerprint,
  SecretKeyStore,
  type KeyStore,
} from 'agent-messaging-sdk/crypto';
import { agentKeyDirectory, createAgentApi, ensureAgentKeys, toBase64 } from 'agent-messaging-sdk/protocol';
import { EXIT, required, stringOf } from '../args.js';
import { runCommand, runGroup, type CommandSpec } from '../command.js';
import { envValue, writeJson, type CliIo } from '../io.js';
import { baseUrlOf, cliRestClient, DEFAULT_BASE_URL } from '../rest.js';
import { DEFAULT_KEY_DIR, publicKeyView } from './keygen.js';

/** Help text of `ams keys init`. */
export const KEYS_INIT_HELP = `Usage: ams keys init [--agent-id ID] [--token T] [--dir DIR | --from-secret VAR]
                     [--secret-file FILE] [--base-url URL] [--json]

Creates the agent's keys when its key store is empty (or loads the stored
ones) and registers their public keys with the service, without connecting a
dispatcher. Run it once in the deploy pipeline before starting the copies of
an agent: every copy then loads the same keys. Safe to run again, and safe
when several run at once on one shared directory (one creates, the others
load its keys). Private keys are never printed.

Options:
  --agent-id ID        The agent's id (default $AMS_AGENT_ID)
  --token T            The agent token hsk_… (default $AMS_AGENT_TOKEN)
  --dir DIR            Key directory, as new FileKeyStore({ directory: DIR })
                       (default $AMS_KEY_DIR/<agent id>, AMS_KEY_DIR defaults
                       to ${DEFAULT_KEY_DIR})
  --from-secret VAR    Read the key ring from environment variable VAR
                       (base64, as --secret-file writes it) instead of a
                       directory; only registers, never creates
  --secret-file FILE   Also write the key ring, base64, to FILE (created with
                       mode 0600, never overwritten) for a secret manager;
                       copies load it with new SecretKeyStore({ secret })
  --base-url URL       Service URL (default $AMS_BASE_URL, else ${DEFAULT_BASE_URL})
  --json               Print the result as one JSON object
  -h, --help           Show this help

Exit status: 0 keys ready and registered, 1 failure (e.g. the service holds
other keys: AGENT_KEYS_MISMATCH), 2 usage error.
`;

/** Help text of `ams keys`. */
export const KEYS_HELP = `Usage: ams keys <command> [options]

Commands:
  init    Create (or load) the agent's keys and register them, without a dispatcher

Run 'ams keys <command> --help' for its options.
`;

async function writeSecretFile(file: string, store: KeyStore): Promise<void> {
  const ring = await store.load();
  if (ring === undefined) throw new Error('the key store is empty after init');
  const data = encodeKeyRing(ring);
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(`${toBase64(data)}\n`);
    await handle.sync();
  } finally {
    data.fill(0);
    await handle.close();
  }
}

const initCommand: CommandSpec = {
  name: 'keys init',
  help: KEYS_INIT_HELP,
  options: {
    'agent-id': { type: 'string' },
    token: { type: 'string' },
    dir: { type: 'string' },
    'from-secret': { type: 'string' },
    'secret-file': { type: 'string' },
    'base-url': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values, io) {
    const agentId = required(
      stringOf(values, 'agent-id') ?? envValue(io, 'AMS_AGENT_ID'),
      '--agent-id (or AMS_AGENT_ID)',
    );
    const token = required(
      stringOf(values, 'token') ?? envValue(io, 'AMS_AGENT_TOKEN'),
      '--token (or AMS_AGENT_TOKEN)',
    );
    const fromSecret = stringOf(values, 'from-secret');
    const dir = stringOf(values, 'dir');
    if (fromSecret !== undefined && dir !== undefined) {
      io.stderr.write('ams keys init: pass --dir or --from-secret, not both.\n');
      return EXIT.usage;
    }
    const store: KeyStore & { file?: string } =
      fromSecret !== undefined
        ? new SecretKeyStore({ secret: () => envValue(io, fromSecret), name: fromSecret })
        : new FileKeyStore({
            directory: resolve(
              dir ?? agentKeyDirectory(envValue(io, 'AMS_KEY_DIR') ?? DEFAULT_KEY_DIR, agentId),
            ),
          });
    const api = createAgentApi({
      baseUrl: baseUrlOf(io, stringOf(values, 'base-url')),
      agentId,
      token,
      rest: cliRestClient(baseUrlOf(io, stringOf(values, 'base-url')), token),
    });
    const events: string[] = [];
    const ring = await ensureAgentKeys({ api, store, onEvent: (e) => events.push(e.type) });
    const secretFile = stringOf(values, 'secret-file');
    if (secretFile !== undefined) await writeSecretFile(resolve(secretFile), store);
    const view = {
      agent_id: agentId,
      store: store.file ?? fromSecret,
      created: events.includes('keys.created'),
      registered: events.includes('keys.registered'),
      ...(secretFile === undefined ? {} : { secret_file: resolve(secretFile) }),
      ...publicKeyView(ring.current.keys),
    };
    if (values['json'] === true) {
      writeJson(io, view);
      return EXIT.ok;
    }
    io.stdout.write(
      `Agent ${agentId}: keys ${view.created ? 'created' : 'loaded'} (${view.store}), ` +
        `${view.registered ? 'registered' : 'already registered'}\n` +
        `  encryption (X25519)  key_id ${keyFingerprint(ring.current.keys.encryption.publicKey)}\n` +
        `  signing (Ed25519)    key_id ${view.signing_key_id}\n` +
        (secretFile === undefined ? '' : `  secret written to ${view.secret_file} (mode 0600)\n`),
    );
    return EXIT.ok;
  },
};

/** Runs `ams keys <command>`. */
export function runKeys(argv: readonly string[], io: CliIo): Promise<number> {
  return runGroup('keys', KEYS_HELP, { init: (a, i) => runCommand(initCommand, a, i) }, argv, io);
}
