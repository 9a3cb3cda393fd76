/**
 * `ams webhook verify`: reads a captured webhook request and says precisely
 * whether, and why not, a receiver would accept it.
 *
 * @module
 */
import { EXIT, stringOf, stringsOf, UsageError } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import { envValue, readInput, writeJson, type CliIo } from '../io.js';
import { parseTimeArg } from '../time.js';
import { parseCapture } from '../webhook/capture.js';
import { diagnoseDelivery, type Diagnosis } from '../webhook/diagnose.js';

/** Help text of `ams webhook verify`. */
export const WEBHOOK_VERIFY_HELP = `Usage: ams webhook verify --secret S [--secret S2 …] [--file F|-] [--now T] [--json]

Reads one captured webhook request (headers + raw body) and checks it the way
the SDK's receiver does, listing every problem: a missing header (which one), a
malformed signature (not 64 hex), timestamp skew (how many seconds, past or
future), a signature that matches none of the secrets, an invalid body.
A signature that matches no secret means a wrong secret OR an altered body:
HMAC cannot tell the two apart, so the command says so, and names a typical
alteration (trailing newline, line ends, re-serialised JSON) when undoing it
makes the signature match.

Capture formats (detected automatically):
  HTTP/1.1 text   [POST /path HTTP/1.1]  then "Name: value" lines, a blank
                  line, then the exact body bytes (CRLF or LF).
  JSON            {"headers": {"X-Service-Signature": "…", …}, "body": "<raw body>"}
                  ("body_base64" instead of "body" for non-UTF-8 bodies)
'ams webhook sign --print' writes the HTTP form ('--print --json' the JSON form).

Options:
  --secret S     Webhook secret, exactly as issued (repeat during a rotation;
                 the first is the current one). Default: $AMS_WEBHOOK_SECRET.
                 Prefer the variable: arguments are visible to other users in ps.
  --file F       Capture file, or - for standard input (default -)
  --now T        Judge the timestamp against T (Unix seconds or ISO 8601)
                 instead of the current time
  --json         Print the result as one JSON object
  -h, --help     Show this help

Exit status: 0 valid, 1 rejected, 2 usage error (bad options or capture).
`;

function formatSkew(d: Diagnosis): string {
  if (d.skewSeconds === undefined) return '';
  const s = d.skewSeconds;
  return s >= 0 ? `; timestamp ${s} s in the past` : `; timestamp ${-s} s in the future`;
}

function printText(io: CliIo, d: Diagnosis): void {
  if (d.valid) {
    const secret = d.secretIndex === undefined ? '' : `signature matches secret #${d.secretIndex + 1}`;
    io.stdout.write(
      `valid: ${secret}${formatSkew(d)} (tolerance 300 s); delivery ${d.deliveryId ?? '?'}; event ${d.eventType ?? '?'}\n`,
    );
  } else {
    const answer = `${d.receiverAnswer.status}${d.receiverAnswer.code === undefined ? '' : ` ${d.receiverAnswer.code}`}`;
    io.stdout.write(`invalid: a receiver would answer ${answer}\n`);
    for (const p of d.problems) {
      io.stdout.write(`  - ${p.message}\n`);
      if (p.hint !== undefined) io.stdout.write(`    hint: ${p.hint}\n`);
    }
  }
  for (const note of d.notes) io.stdout.write(`  note: ${note}\n`);
}

function toJson(d: Diagnosis): Record<string, unknown> {
  return {
    valid: d.valid,
    receiver_answer: d.receiverAnswer,
    problems: d.problems,
    notes: d.notes,
    delivery_id: d.deliveryId ?? null,
    timestamp: d.timestamp ?? null,
    skew_seconds: d.skewSeconds ?? null,
    matched_secret: d.secretIndex === undefined ? null : d.secretIndex + 1,
    event_type: d.eventType ?? null,
  };
}

/** The `ams webhook verify` command. */
export const webhookVerifyCommand: CommandSpec = {
  name: 'webhook verify',
  help: WEBHOOK_VERIFY_HELP,
  options: {
    secret: { type: 'string', multiple: true },
    file: { type: 'string' },
    now: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values, io) {
    const given = stringsOf(values, 'secret');
    const fromEnv = envValue(io, 'AMS_WEBHOOK_SECRET');
    const secrets = given.length > 0 ? given : fromEnv === undefined ? [] : [fromEnv];
    if (secrets.length === 0) throw new UsageError('--secret (or AMS_WEBHOOK_SECRET) is required');
    const nowText = stringOf(values, 'now');
    const nowMs = nowText === undefined ? Date.now() : parseTimeArg(nowText, '--now');
    const request = parseCapture(await readInput(io, stringOf(values, 'file') ?? '-'));
    const diagnosis = await diagnoseDelivery({ request, secrets, nowMs });
    if (values['json'] === true) writeJson(io, toJson(diagnosis));
    else printText(io, diagnosis);
    return diagnosis.valid ? EXIT.ok : EXIT.failure;
  },
};

/** Runs `ams webhook verify`. */
export function runWebhookVerify(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(webhookVerifyCommand, argv, io);
}
