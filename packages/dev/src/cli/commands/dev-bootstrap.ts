/**
 * `ams dev bootstrap`: against a reference server started with `--dev`,
 * creates an owner and an agent through the control API and prints the
 * environment an example needs.
 *
 * @module
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { isServiceError } from 'agent-messaging-sdk';
import { pathSegment, type RestClient } from 'agent-messaging-sdk/protocol';
import { EXIT, httpUrlOf, intOf, stringOf } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import { cwdOf, envValue, writeJson, type CliIo } from '../io.js';
import { keepSecretsOutOfGit } from '../git-ignore.js';
import { formatEnvLines } from '../env-lines.js';
import { withProgress } from '../progress.js';
import { baseUrlOf, cliRestClient, DEFAULT_BASE_URL } from '../rest.js';
import { DEFAULT_KEY_DIR } from './keygen.js';

/** Port printed as `PORT` when there is neither `--port` nor a port in `--webhook-url`. */
export const DEFAULT_RECEIVER_PORT = 3000;

/** Help text of `ams dev bootstrap`. */
export const DEV_BOOTSTRAP_HELP = `Usage: ams dev bootstrap [--base-url URL] [--webhook-url URL] [--key-dir DIR]
                         [--port N] [--email E] [--password P] [--name NAME] [--json]

Against a reference server in dev mode ('ams serve --dev'), creates a user
(the agent's owner) and an agent through the control API, optionally
registers a webhook, and prints the variables an example needs, once:

  AMS_BASE_URL  AMS_AGENT_ID  AMS_AGENT_TOKEN  AMS_WEBHOOK_SECRET (with --webhook-url)
  AMS_KEY_DIR   PORT          AMS_OWNER_EMAIL  AMS_OWNER_PASSWORD

The output is valid for a shell and for dotenv:  ams dev bootstrap >> .env
The agent token, webhook secret and owner password appear only in this output.
Keep .env and the key directory out of git: when the current directory has a
.gitignore, the missing entries are added to it; otherwise a line says so.

Options:
  --base-url URL     Reference server (default $AMS_BASE_URL, else ${DEFAULT_BASE_URL})
  --webhook-url URL  Register this receiver address for the agent (webhook mode)
  --key-dir DIR      Key directory for AMS_KEY_DIR (default ${DEFAULT_KEY_DIR}; printed absolute)
  --port N           PORT for the example's receiver (default: the port of
                     --webhook-url, else ${DEFAULT_RECEIVER_PORT})
  --email E          Owner's email (default dev-<random>@example.com)
  --password P       Owner's password (default random; printed as AMS_OWNER_PASSWORD)
  --name NAME        Agent name (default dev-agent)
  --json             Print one JSON object with the same names as keys
  -h, --help         Show this help
`;

const CreatedUserSchema = z.looseObject({ user_id: z.string().min(1) });
const CreatedAgentSchema = z.looseObject({ agent_id: z.string().min(1), token: z.string().min(1) });
const WebhookSchema = z.looseObject({ secret: z.string().min(1) });

function randomText(bytes: number): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url');
}

function receiverPort(given: string | undefined, webhookUrl: URL | undefined): number {
  const port = intOf(given, '--port', 1, 65_535);
  if (port !== undefined) return port;
  if (webhookUrl === undefined) return DEFAULT_RECEIVER_PORT;
  if (webhookUrl.port !== '') return Number(webhookUrl.port);
  return webhookUrl.protocol === 'https:' ? 443 : 80;
}

interface Created {
  userId: string;
  agentId: string;
  token: string;
  secret: string | undefined;
}

async function create(rest: RestClient, o: { email: string; password: string; name: string; webhook?: URL }) {
  const control = { auth: false } as const;
  const user = await rest.post(
    '/_control/users',
    { email: o.email, account_password: o.password, display_name: 'Dev Owner' },
    { ...control, schema: CreatedUserSchema },
  );
  const agent = await rest.post(
    '/_control/agents',
    { owner_id: user.user_id, name: o.name },
    { ...control, schema: CreatedAgentSchema },
  );
  let secret: string | undefined;
  if (o.webhook !== undefined) {
    const path = `/_control/agents/${pathSegment(agent.agent_id)}/webhook`;
    secret = (await rest.put(path, { url: o.webhook.href }, { ...control, schema: WebhookSchema })).secret;
  }
  return { userId: user.user_id, agentId: agent.agent_id, token: agent.token, secret } satisfies Created;
}

function explain(err: unknown, baseUrl: string): unknown {
  if (isServiceError(err, 'NOT_FOUND')) {
    return new Error(`${baseUrl} has no control API: start the reference server with 'ams serve --dev'`);
  }
  return err;
}

/** The `ams dev bootstrap` command. */
export const devBootstrapCommand: CommandSpec = {
  name: 'dev bootstrap',
  help: DEV_BOOTSTRAP_HELP,
  options: {
    'base-url': { type: 'string' },
    'webhook-url': { type: 'string' },
    'key-dir': { type: 'string' },
    port: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values, io) {
    const baseUrl = baseUrlOf(io, stringOf(values, 'base-url'));
    const hookText = stringOf(values, 'webhook-url');
    const webhook = hookText === undefined ? undefined : httpUrlOf(hookText, '--webhook-url');
    const port = receiverPort(stringOf(values, 'port'), webhook);
    const keyDir = resolve(
      cwdOf(io),
      stringOf(values, 'key-dir') ?? envValue(io, 'AMS_KEY_DIR') ?? DEFAULT_KEY_DIR,
    );
    const email =
      stringOf(values, 'email') ??
      `dev-${randomText(6)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, 'x')}@example.com`;
    const password = stringOf(values, 'password') ?? randomText(18);
    const name = stringOf(values, 'name') ?? 'dev-agent';
    const rest = cliRestClient(baseUrl);
    const created = await withProgress(
      io,
      'ams dev bootstrap',
      `creating a user and an agent at ${baseUrl}`,
      create(rest, { email, password, name, ...(webhook === undefined ? {} : { webhook }) }).catch(
        (err: unknown) => {
          throw explain(err, baseUrl);
        },
      ),
    );
    const vars = {
      AMS_BASE_URL: baseUrl,
      AMS_AGENT_ID: created.agentId,
      AMS_AGENT_TOKEN: created.token,
      AMS_WEBHOOK_SECRET: created.secret,
      AMS_KEY_DIR: keyDir,
      PORT: String(port),
      AMS_OWNER_EMAIL: email,
      AMS_OWNER_PASSWORD: password,
    };
    if (values['json'] === true) writeJson(io, JSON.parse(JSON.stringify(vars)));
    else io.stdout.write(formatEnvLines(vars));
    io.stderr.write(
      `ams dev bootstrap: created user ${created.userId} and agent ${created.agentId}` +
        `${webhook === undefined ? '' : ` (webhook ${webhook.href})`}; the token${created.secret === undefined ? '' : ', secret'} and password above are not shown again.\n`,
    );
    const git = keepSecretsOutOfGit(cwdOf(io), keyDir);
    if (git !== undefined) io.stderr.write(`ams dev bootstrap: ${git}.\n`);
    return EXIT.ok;
  },
};

/** Runs `ams dev bootstrap`. */
export function runDevBootstrap(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(devBootstrapCommand, argv, io);
}
