/**
 * `ams webhook sign`: builds a delivery signed exactly as the service signs
 * it and POSTs it to a local receiver (or prints it as a capture).
 *
 * @module
 */
import { LIMITS } from 'agent-messaging-sdk';
import { isWebhookEventType } from 'agent-messaging-sdk/protocol';
import { signWebhook } from 'agent-messaging-sdk/webhook';
import { EXIT, httpUrlOf, stringOf, UsageError } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import { envValue, readInput, writeJson, type CliIo } from '../io.js';
import { isLoopbackUrl } from '../loopback.js';
import { withProgress } from '../progress.js';
import { parseTimeArg } from '../time.js';
import { uuidV7 } from '../uuid.js';
import { formatHttpCapture, formatJsonCapture } from '../webhook/capture.js';
import { postDelivery, type PostResult } from '../webhook/post.js';

/** Help text of `ams webhook sign`. */
export const WEBHOOK_SIGN_HELP = `Usage: ams webhook sign --secret S --url URL [--body FILE|-] [--type TYPE]
                        [--agent-id ID] [--timestamp T] [--delivery-id ID]
                        [--print] [--allow-remote] [--json]

Builds a webhook delivery signed the way the service signs it
(hex HMAC-SHA256 of "timestamp.delivery_id.body") and POSTs it to URL, then
prints the receiver's status, what the service would do with that answer,
and the response body. Exit status 0 only when the receiver answered
200, 201 or 204 (delivered).

Without --body the body is a ${'`'}message.new${'`'} delivery whose wire_envelope is a
placeholder (valid base64, not an envelope: a receiver that opens envelopes
reports a decrypt failure and still answers 200).

Options:
  --secret S         Webhook secret, exactly as issued. Default: $AMS_WEBHOOK_SECRET
                     (prefer the variable: arguments are visible in ps)
  --url URL          Receiver address. Only loopback hosts (127.0.0.0/8, ::1,
                     localhost) unless --allow-remote
  --body FILE        Raw body to sign, or - for standard input (sent byte for byte)
  --type TYPE        Event type of the default body (default message.new)
  --agent-id ID      X-Service-Agent-Id header. Default: $AMS_AGENT_ID, else omitted
  --timestamp T      Signing time: Unix seconds or ISO 8601 (default now)
  --delivery-id ID   X-Service-Delivery-Id (default a fresh UUID v7)
  --print            Print the signed request instead of sending it, in the
                     capture format 'ams webhook verify' reads (HTTP/1.1 text;
                     with --json the JSON form). --url is optional then.
  --allow-remote     Allow a non-loopback --url
  --json             Print the result as one JSON object
  -h, --help         Show this help
`;

const PLACEHOLDER_ENVELOPE = Buffer.from('ams webhook sign: placeholder, not an envelope').toString('base64');
const PRINT_DEFAULT_URL = 'http://127.0.0.1:3000/webhook';

/** The default test body: a delivery of `type` with a placeholder envelope, created at `createdAtMs`. */
export function defaultDeliveryBody(type: string, createdAtMs: number): string {
  return JSON.stringify({
    type,
    version: 'v1',
    wire_envelope: PLACEHOLDER_ENVELOPE,
    metadata: {
      conversation_id: '00000000-0000-4000-8000-000000000001',
      sender_id: '00000000-0000-4000-8000-000000000002',
      created_at: new Date(createdAtMs).toISOString(),
    },
  });
}

async function bodyOf(io: CliIo, bodyPath: string | undefined, type: string | undefined, ms: number) {
  if (bodyPath !== undefined) {
    if (type !== undefined) throw new UsageError('--type applies to the default body only, not with --body');
    return readInput(io, bodyPath);
  }
  const t = type ?? 'message.new';
  if (!isWebhookEventType(t)) {
    io.stderr.write(`ams webhook sign: warning: '${t}' is not an event type the service sends by webhook.\n`);
  }
  return new TextEncoder().encode(defaultDeliveryBody(t, ms));
}

function printResult(io: CliIo, url: URL, r: PostResult, json: boolean, meta: Record<string, unknown>): void {
  if (json) {
    writeJson(io, { url: url.href, ...meta, status: r.status, outcome: r.outcome, response_body: r.body });
    return;
  }
  io.stdout.write(`HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ''}: ${r.explanation}\n`);
  if (r.body.length > 0) io.stdout.write(r.body.endsWith('\n') ? r.body : `${r.body}\n`);
}

/** The `ams webhook sign` command. */
export const webhookSignCommand: CommandSpec = {
  name: 'webhook sign',
  help: WEBHOOK_SIGN_HELP,
  options: {
    secret: { type: 'string' },
    url: { type: 'string' },
    body: { type: 'string' },
    type: { type: 'string' },
    'agent-id': { type: 'string' },
    timestamp: { type: 'string' },
    'delivery-id': { type: 'string' },
    print: { type: 'boolean' },
    'allow-remote': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(values, io) {
    const secret = stringOf(values, 'secret') ?? envValue(io, 'AMS_WEBHOOK_SECRET');
    if (secret === undefined) throw new UsageError('--secret (or AMS_WEBHOOK_SECRET) is required');
    const print = values['print'] === true;
    const json = values['json'] === true;
    const urlText = stringOf(values, 'url') ?? (print ? PRINT_DEFAULT_URL : undefined);
    if (urlText === undefined) throw new UsageError('--url is required (or --print)');
    const url = httpUrlOf(urlText, '--url');
    if (!print && !isLoopbackUrl(url) && values['allow-remote'] !== true) {
      throw new UsageError(
        `refusing to send a test delivery to non-loopback host '${url.hostname}' without --allow-remote`,
      );
    }
    const tsText = stringOf(values, 'timestamp');
    const timestamp = Math.floor(
      (tsText === undefined ? Date.now() : parseTimeArg(tsText, '--timestamp')) / 1000,
    );
    const deliveryId = stringOf(values, 'delivery-id') ?? uuidV7(Date.now());
    const body = await bodyOf(io, stringOf(values, 'body'), stringOf(values, 'type'), timestamp * 1000);
    const agentId = stringOf(values, 'agent-id') ?? envValue(io, 'AMS_AGENT_ID');
    const signed = await signWebhook({
      secret,
      timestamp,
      deliveryId,
      body,
      ...(agentId ? { agentId } : {}),
    });
    if (print) {
      const capture = { method: 'POST', url, headers: signed.headers, body };
      if (json) io.stdout.write(formatJsonCapture(capture));
      else io.stdout.write(decodeForPrint(formatHttpCapture(capture)));
      return EXIT.ok;
    }
    const result = await withProgress(
      io,
      'ams webhook sign',
      `waiting for ${url.origin} (the service gives up after ${LIMITS.WEBHOOK_RESPONSE_TIMEOUT_MS / 1000} s)`,
      postDelivery(url, signed.headers, body),
    );
    printResult(io, url, result, json, { delivery_id: deliveryId, timestamp });
    return result.outcome === 'delivered' ? EXIT.ok : EXIT.failure;
  },
};

function decodeForPrint(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UsageError('the body is not UTF-8 text: use --print --json (it carries body_base64)');
  }
}

/** Runs `ams webhook sign`. */
export function runWebhookSign(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(webhookSignCommand, argv, io);
}
