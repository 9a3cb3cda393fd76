/**
 * `ams keygen`: creates an agent key store (X25519 + Ed25519) in a private
 * directory and prints the public keys and their fingerprints, never a
 * private key.
 *
 * @module
 */
import { resolve } from 'node:path';
import {
  FileKeyStore,
  KeyRing,
  generateKeys,
  keyFingerprint,
  type AgentKeys,
} from 'agent-messaging-sdk/crypto';
import { isCryptoError, type Logger } from 'agent-messaging-sdk';
import { agentKeyDirectory } from 'agent-messaging-sdk/protocol';
import { EXIT, stringOf, type ParsedValues } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import { envValue, writeJson, type CliIo } from '../io.js';

/** Key root when `AMS_KEY_DIR` is not set (the agent's keys go in `<root>/<agent id>`). */
export const DEFAULT_KEY_DIR = './.ams-keys';

/** Help text of `ams keygen`. */
export const KEYGEN_HELP = `Usage: ams keygen [--agent ID | --dir DIR] [--force] [--json]

Creates an agent key store: a fresh X25519 (encryption) and Ed25519 (signing)
key pair in $AMS_KEY_DIR/<agent id>/keys.json, where the Agent's default key
store looks (directory mode 0700, file mode 0600), and prints the public keys
with their fingerprints (key_id). Private keys are never printed. The agent
registers the public keys with the service on start.

Options:
  --agent ID   The agent's id (default $AMS_AGENT_ID); the store goes in
               $AMS_KEY_DIR/ID (AMS_KEY_DIR defaults to ${DEFAULT_KEY_DIR})
  --dir DIR    The agent's own key directory instead, exactly as
               new FileKeyStore({ directory: DIR }) (no agent id needed)
  --force      Replace an existing (or unreadable) store. Messages sealed to the
               old keys can no longer be opened, and the service will report
               AGENT_KEYS_MISMATCH until the agent's token is regenerated.
  --json       Print the result as one JSON object
  -h, --help   Show this help

Exit status: 0 created, 1 a store exists (without --force) or I/O failed,
2 usage error (e.g. neither --dir nor an agent id).
`;

/** Public facts of a key set (wire field names, as the service's key view). */
export interface PublicKeyView {
  /** Fingerprint of the X25519 public key (16 hex). */
  readonly key_id: string;
  /** X25519 public key, base64. */
  readonly public_key: string;
  /** Fingerprint of the Ed25519 public key (16 hex). */
  readonly signing_key_id: string;
  /** Ed25519 public key, base64. */
  readonly signing_public_key: string;
}

/** The public half of `keys`: fingerprints and base64 public keys, nothing private. */
export function publicKeyView(keys: AgentKeys): PublicKeyView {
  return {
    key_id: keyFingerprint(keys.encryption.publicKey),
    public_key: Buffer.from(keys.encryption.publicKey).toString('base64'),
    signing_key_id: keyFingerprint(keys.signing.publicKey),
    signing_public_key: Buffer.from(keys.signing.publicKey).toString('base64'),
  };
}

/** Store warnings (e.g. a corrupt key file restored from `keys.json.prev`) as `warning:` lines on stderr. */
function stderrWarnings(io: CliIo): Logger {
  const ignore = (): void => undefined;
  return {
    debug: ignore,
    info: ignore,
    warn: (message) => void io.stderr.write(`ams keygen: warning: ${message}\n`),
    error: (message) => void io.stderr.write(`ams keygen: error: ${message}\n`),
  };
}

/** What is in the directory now: a ring, nothing, or something unreadable. */
async function existing(store: FileKeyStore): Promise<KeyRing | 'unreadable' | undefined> {
  try {
    return await store.load();
  } catch (err) {
    if (isCryptoError(err) && err.code === 'KEY_STORE_CORRUPT') return 'unreadable';
    throw err;
  }
}

function refuse(io: CliIo, file: string, found: KeyRing | 'unreadable'): number {
  const what =
    found === 'unreadable'
      ? 'exists but cannot be read (KEY_STORE_CORRUPT)'
      : `already exists (key_id ${keyFingerprint(found.current.keys.encryption.publicKey)})`;
  io.stderr.write(`ams keygen: key store ${file} ${what}; pass --force to replace it.\n`);
  return EXIT.failure;
}

/**
 * `--dir` as given, else the Agent's default key directory
 * `$AMS_KEY_DIR/<agent id>`; undefined when there is no agent id.
 */
function keyDirectory(values: ParsedValues, io: CliIo): string | undefined {
  const explicit = stringOf(values, 'dir');
  if (explicit !== undefined) return resolve(explicit);
  const agentId = stringOf(values, 'agent') ?? envValue(io, 'AMS_AGENT_ID');
  if (agentId === undefined || agentId === '') return undefined;
  return resolve(agentKeyDirectory(envValue(io, 'AMS_KEY_DIR') ?? DEFAULT_KEY_DIR, agentId));
}

/** The `ams keygen` command. */
export const keygenCommand: CommandSpec = {
  name: 'keygen',
  help: KEYGEN_HELP,
  options: {
    agent: { type: 'string' },
    dir: { type: 'string' },
    force: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(values, io) {
    const dir = keyDirectory(values, io);
    if (dir === undefined) {
      io.stderr.write(
        'ams keygen: which agent? pass --agent ID or set AMS_AGENT_ID (keys go in $AMS_KEY_DIR/<agent id>, ' +
          'where the Agent looks), or --dir DIR for a key directory of your own.\n',
      );
      return EXIT.usage;
    }
    const store = new FileKeyStore({ directory: dir, logger: stderrWarnings(io) });
    const found = await existing(store);
    const force = values['force'] === true;
    if (found !== undefined && !force) return refuse(io, store.file, found);
    const keys = generateKeys();
    await store.save(KeyRing.create(keys, Date.now()));
    const view = { file: store.file, replaced: found !== undefined, ...publicKeyView(keys) };
    if (found !== undefined) {
      io.stderr.write('ams keygen: warning: replaced the previous keys; messages sealed to them are lost.\n');
    }
    if (values['json'] === true) {
      writeJson(io, view);
      return EXIT.ok;
    }
    io.stdout.write(
      `Created key store ${view.file}\n` +
        `  encryption (X25519)  key_id ${view.key_id}  public_key ${view.public_key}\n` +
        `  signing (Ed25519)    key_id ${view.signing_key_id}  public_key ${view.signing_public_key}\n`,
    );
    return EXIT.ok;
  },
};

/** Runs `ams keygen`. */
export function runKeygen(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(keygenCommand, argv, io);
}
