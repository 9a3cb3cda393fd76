/**
 * `ams manifest validate FILE` and `ams manifest push FILE`.
 *
 * Both read the manifest (JSON; `-` reads standard input) and check it as the
 * service will: size first (UTF-8 bytes of the canonical JSON; a warning at
 * 64 KB and above, a refusal above 128 KB), then the fields. `push` then
 * proposes it (`PUT /agents/:id/manifest`) based on the head version it
 * reads first (or `--based-on N`), and prints the pending version.
 *
 * @module
 */
import { isValidationError, LIMITS } from 'agent-messaging-sdk';
import {
  AgentManifest,
  checkManifest,
  silentLogger,
  systemClock,
  type CapabilityManifest,
} from 'agent-messaging-sdk/protocol';
import { EXIT, intOf, required, stringOf, UsageError } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import { envValue, readInput, writeJson, type CliIo } from '../io.js';
import { baseUrlOf, cliRestClient, DEFAULT_BASE_URL } from '../rest.js';

/** Help text of `ams manifest validate`. */
export const MANIFEST_VALIDATE_HELP = `Usage: ams manifest validate FILE [--json]

Checks a capability manifest (JSON; - reads standard input) as the service
will: its size (UTF-8 bytes of the canonical JSON: at most ${LIMITS.MANIFEST_MAX_BYTES}, a
warning from ${LIMITS.MANIFEST_WARN_BYTES}), then its fields (docs/manifests.md). Exit 0 when valid.

Options:
  --json       Print {"valid":…,"size_bytes":…,"warning":…,"issues":[…]}
  -h, --help   Show this help
`;

/** Help text of `ams manifest push`. */
export const MANIFEST_PUSH_HELP = `Usage: ams manifest push FILE [--based-on N] [--fail-fast] [--agent-id ID] [--token T] [--base-url URL] [--json]

Checks the manifest like 'ams manifest validate', then proposes it to the
agent's owner (PUT /agents/:id/manifest). Prints the pending version; the
owner accepts or rejects it and the agent gets agent.capability_changed.
At most 1 update per minute: by default the command waits for the limit.

Options:
  --based-on N     Head version the change is based on (default: read it first)
  --fail-fast      Exit at once on MANIFEST_UPDATE_RATE_LIMITED instead of waiting
  --agent-id ID    Agent id (default $AMS_AGENT_ID)
  --token T        Agent token hsk_… (default $AMS_AGENT_TOKEN; prefer the
                   variable: arguments are visible in ps)
  --base-url URL   Service (default $AMS_BASE_URL, else ${DEFAULT_BASE_URL})
  --json           Print the pending revision as the service sent it
  -h, --help       Show this help
`;

async function readManifestFile(io: CliIo, path: string): Promise<unknown> {
  const text = new TextDecoder().decode(await readInput(io, path));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${path === '-' ? 'standard input' : path} is not JSON`);
  }
}

function warnLine(io: CliIo, name: string, sizeBytes: number): void {
  io.stderr.write(
    `ams ${name}: warning: the manifest is ${sizeBytes} bytes (${LIMITS.MANIFEST_WARN_BYTES} and above is large; the limit is ${LIMITS.MANIFEST_MAX_BYTES})\n`,
  );
}

const validateCommand: CommandSpec = {
  name: 'manifest validate',
  help: MANIFEST_VALIDATE_HELP,
  options: { json: { type: 'boolean' } },
  positionals: 1,
  async run(values, io, positionals) {
    const file = required(positionals[0], 'FILE');
    const input = await readManifestFile(io, file);
    const json = values['json'] === true;
    try {
      const { sizeBytes, warning } = checkManifest(input);
      if (warning) warnLine(io, 'manifest validate', sizeBytes);
      if (json) writeJson(io, { valid: true, size_bytes: sizeBytes, warning, issues: [] });
      else io.stdout.write(`valid: ${sizeBytes} bytes\n`);
      return EXIT.ok;
    } catch (err) {
      if (!json || !isValidationError(err)) throw err;
      writeJson(io, { valid: false, issues: err.issues });
      return EXIT.failure;
    }
  },
};

const pushCommand: CommandSpec = {
  name: 'manifest push',
  help: MANIFEST_PUSH_HELP,
  options: {
    'based-on': { type: 'string' },
    'fail-fast': { type: 'boolean' },
    'agent-id': { type: 'string' },
    token: { type: 'string' },
    'base-url': { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: 1,
  async run(values, io, positionals) {
    const file = required(positionals[0], 'FILE');
    const agentId = required(
      stringOf(values, 'agent-id') ?? envValue(io, 'AMS_AGENT_ID'),
      '--agent-id (or AMS_AGENT_ID)',
    );
    const token = required(
      stringOf(values, 'token') ?? envValue(io, 'AMS_AGENT_TOKEN'),
      '--token (or AMS_AGENT_TOKEN)',
    );
    const basedOnGiven = intOf(stringOf(values, 'based-on'), '--based-on', 0, Number.MAX_SAFE_INTEGER);
    const input = await readManifestFile(io, file);
    const { manifest, sizeBytes, warning } = checkManifest(input);
    if (warning) warnLine(io, 'manifest push', sizeBytes);
    const manifests = new AgentManifest({
      rest: cliRestClient(baseUrlOf(io, stringOf(values, 'base-url')), token),
      agentId,
      clock: systemClock,
      logger: silentLogger,
      warn: () => undefined,
      onEvent: () => () => undefined,
    });
    const basedOnVersion = basedOnGiven ?? (await manifests.get()).head_version;
    const revision = await manifests.update(manifest as CapabilityManifest, {
      basedOnVersion,
      failFast: values['fail-fast'] === true,
    });
    if (values['json'] === true) writeJson(io, revision);
    else
      io.stdout.write(
        `proposed version ${revision.version} (${revision.size_bytes} bytes): waiting for the owner's decision\n`,
      );
    return EXIT.ok;
  },
};

/** Runs `ams manifest validate`. */
export function runManifestValidate(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(validateCommand, argv, io);
}

/** Runs `ams manifest push`. */
export function runManifestPush(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(pushCommand, argv, io);
}
