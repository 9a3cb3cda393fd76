/**
 * `ams token rotate|revoke`: the owner's operations on an agent token. They
 * need the owner's user JWT, so the command signs in with the owner's email
 * and password (`POST /auth/login`), acts, and signs that session out again
 * (`DELETE /users/me/devices/:device_id`) so repeated use never fills the
 * account's five device slots.
 *
 * @module
 */
import { z } from 'zod';
import { pathSegment, type RestClient } from 'agent-messaging-sdk/protocol';
import { EXIT, required, stringOf, type ParsedValues } from '../args.js';
import { runCommand, runGroup, type CommandSpec } from '../command.js';
import { envValue, writeJson, type CliIo } from '../io.js';
import { withProgress } from '../progress.js';
import { describeError } from '../report.js';
import { baseUrlOf, cliRestClient, DEFAULT_BASE_URL } from '../rest.js';

/** Turnstile token sent with the login when none is given (the reference server's dev policy passes it). */
export const DEV_TURNSTILE_TOKEN = 'ams-cli';

const COMMON_OPTIONS_HELP = `  --agent-id ID          Agent id (default $AMS_AGENT_ID)
  --email E              Owner's email (default $AMS_OWNER_EMAIL)
  --password P           Owner's account password (default $AMS_OWNER_PASSWORD;
                         prefer the variable: arguments are visible in ps)
  --turnstile-token T    Human-verification token for the login (default
                         $AMS_TURNSTILE_TOKEN, else "${DEV_TURNSTILE_TOKEN}", which only a
                         reference server accepts)
  --base-url URL         Service (default $AMS_BASE_URL, else ${DEFAULT_BASE_URL})
  --json                 Print the result as one JSON object
  -h, --help             Show this help
`;

/** Help text of `ams token`. */
export const TOKEN_HELP = `Usage: ams token <rotate|revoke> [options]

Commands:
  rotate    Regenerate the agent's token (prints the new token once)
  revoke    Delete the agent's token (every connection using it is closed)

Both sign in as the agent's owner (POST /auth/login) and sign that session
out when done. Run 'ams token <command> --help' for the options.
`;

const ROTATE_HELP = `Usage: ams token rotate [--emergency] [options]

Regenerates the agent's token (POST /agents/:id/token/regenerate) and prints
the new one on stdout, once, as AMS_AGENT_TOKEN=… (or in --json).
Normal mode: the old token and the old public key stay valid 7 days (none
stays valid when the token was revoked before).
--emergency: the old token and key are invalid at once.
The service allows 5 regenerations per 24 hours.
Restart the agent with the new token: it registers new keys by itself.

Options:
  --emergency            Invalidate the old token at once
${COMMON_OPTIONS_HELP}`;

const REVOKE_HELP = `Usage: ams token revoke [options]

Deletes the agent's token (DELETE /agents/:id/token): the agent has no token
until the next 'ams token rotate', and every connection using it is closed.

Options:
${COMMON_OPTIONS_HELP}`;

const COMMON_OPTIONS = {
  'agent-id': { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  'turnstile-token': { type: 'string' },
  'base-url': { type: 'string' },
  json: { type: 'boolean' },
} as const;

const LoginSchema = z.looseObject({
  access_token: z.string().min(1),
  device_id: z.string().min(1).optional(),
});
const RegenerateSchema = z.looseObject({ token: z.string().min(1) });
const RevokeSchema = z.looseObject({ disconnected: z.number().optional() });

interface OwnerContext {
  readonly agentId: string;
  readonly rest: RestClient;
}

/** Signs in as the owner, runs `action`, then signs the session out (best effort). */
async function asOwner<T>(
  io: CliIo,
  name: string,
  values: ParsedValues,
  action: (c: OwnerContext) => Promise<T>,
) {
  const agentId = required(
    stringOf(values, 'agent-id') ?? envValue(io, 'AMS_AGENT_ID'),
    '--agent-id (or AMS_AGENT_ID)',
  );
  const email = required(
    stringOf(values, 'email') ?? envValue(io, 'AMS_OWNER_EMAIL'),
    '--email (or AMS_OWNER_EMAIL)',
  );
  const password = required(
    stringOf(values, 'password') ?? envValue(io, 'AMS_OWNER_PASSWORD'),
    '--password (or AMS_OWNER_PASSWORD)',
  );
  const turnstile =
    stringOf(values, 'turnstile-token') ?? envValue(io, 'AMS_TURNSTILE_TOKEN') ?? DEV_TURNSTILE_TOKEN;
  let accessToken = '';
  const rest = cliRestClient(baseUrlOf(io, stringOf(values, 'base-url')), () => accessToken);
  const work = async (): Promise<T> => {
    const login = await rest.post(
      '/auth/login',
      { email, account_password: password, turnstile_token: turnstile },
      { auth: false, schema: LoginSchema },
    );
    accessToken = login.access_token;
    try {
      return await action({ agentId, rest });
    } finally {
      if (login.device_id !== undefined) {
        await rest.delete(`/users/me/devices/${pathSegment(login.device_id)}`).catch((err: unknown) => {
          io.stderr.write(
            `ams ${name}: warning: could not sign the CLI session out: ${describeError(err)}\n`,
          );
        });
      }
    }
  };
  return withProgress(io, `ams ${name}`, 'signing in as the owner', work());
}

/**
 * What became of the earlier token: invalid now (`--emergency`), valid until
 * the grace end the service reported, none left (`null`: there was no live
 * token, e.g. after `ams token revoke`), or the documented 7 days when the
 * service did not say.
 */
function previousToken(emergency: boolean, validUntil: unknown): string {
  if (emergency) return 'the old token and key are invalid now';
  if (typeof validUntil === 'string') return `the old token stays valid until ${validUntil}`;
  if (validUntil === null) return 'no earlier token stays valid (there was none, e.g. after a revocation)';
  return 'the old token stays valid for 7 days';
}

const rotateCommand: CommandSpec = {
  name: 'token rotate',
  help: ROTATE_HELP,
  options: { ...COMMON_OPTIONS, emergency: { type: 'boolean' } },
  async run(values, io) {
    const emergency = values['emergency'] === true;
    const { agentId, data } = await asOwner(io, 'token rotate', values, async ({ agentId, rest }) => ({
      agentId,
      data: await rest.post(
        `/agents/${pathSegment(agentId)}/token/regenerate`,
        { emergency },
        { schema: RegenerateSchema },
      ),
    }));
    if (values['json'] === true) {
      writeJson(io, { agent_id: agentId, emergency, ...data });
    } else {
      io.stdout.write(`AMS_AGENT_TOKEN=${data.token}\n`);
      io.stderr.write(
        `ams token rotate: new token for agent ${agentId} above (not shown again); ` +
          `${previousToken(emergency, data['previous_token_valid_until'])}. ` +
          'Restart the agent with the new token: it registers new keys by itself.\n',
      );
    }
    return EXIT.ok;
  },
};

const revokeCommand: CommandSpec = {
  name: 'token revoke',
  help: REVOKE_HELP,
  options: COMMON_OPTIONS,
  async run(values, io) {
    const { agentId, data } = await asOwner(io, 'token revoke', values, async ({ agentId, rest }) => ({
      agentId,
      data: await rest.delete(`/agents/${pathSegment(agentId)}/token`, { schema: RevokeSchema }),
    }));
    if (values['json'] === true) writeJson(io, { agent_id: agentId, token_revoked: true, ...data });
    else {
      const closed = data.disconnected === undefined ? '' : `; ${data.disconnected} connection(s) closed`;
      io.stdout.write(`revoked the token of agent ${agentId}${closed}\n`);
    }
    return EXIT.ok;
  },
};

/** Runs `ams token …`. */
export function runToken(argv: readonly string[], io: CliIo): Promise<number> {
  return runGroup(
    'token',
    TOKEN_HELP,
    {
      rotate: (a, i) => runCommand(rotateCommand, a, i),
      revoke: (a, i) => runCommand(revokeCommand, a, i),
    },
    argv,
    io,
  );
}
