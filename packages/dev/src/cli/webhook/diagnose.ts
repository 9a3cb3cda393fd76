/**
 * Says precisely why a captured webhook delivery would be rejected.
 *
 * Every check runs (not only the first failing one), so one run lists every
 * problem: missing or malformed headers, timestamp skew with its size and
 * direction, a malformed signature, a signature that matches none of the
 * secrets, an invalid body. The verdict itself comes from the SDK's own
 * verifier, so `valid` is exactly what a receiver built on
 * `agent-messaging-sdk/webhook` would decide.
 *
 * A signature that matches no secret cannot be attributed: a wrong secret
 * and an altered body look the same to HMAC. What can be said is whether a
 * typical alteration (a trailing newline, changed line ends, re-serialised
 * JSON, extra bytes past Content-Length) turns it into a match.
 *
 * @module
 */
import {
  WEBHOOK_HEADERS,
  createWebhookVerifier,
  isWebhookVerificationError,
  parseWebhookDelivery,
  signWebhook,
} from 'agent-messaging-sdk/webhook';
import { LIMITS } from 'agent-messaging-sdk';
import { headerOf, headerRecord, type CapturedRequest } from './capture.js';

/** One reason a delivery fails. `code` is the receiver's error code for it. */
export interface DiagnosisProblem {
  readonly code: string;
  readonly message: string;
  /** A likely cause, when one could be found. */
  readonly hint?: string;
  /** Machine-readable specifics (header names, skew seconds, …). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** The outcome of {@link diagnoseDelivery}. */
export interface Diagnosis {
  /** True when the SDK's verifier accepts the delivery at `nowMs`. */
  readonly valid: boolean;
  /** What the SDK's receiver would answer: `200`, or the status and code of the first failing check. */
  readonly receiverAnswer: { readonly status: number; readonly code?: string };
  readonly problems: readonly DiagnosisProblem[];
  /** Facts worth knowing that are not failures (e.g. an older secret matched). */
  readonly notes: readonly string[];
  readonly deliveryId: string | undefined;
  /** `X-Service-Timestamp` in Unix seconds, when well-formed. */
  readonly timestamp: number | undefined;
  /** `now − timestamp` in seconds: positive when signed in the past. */
  readonly skewSeconds: number | undefined;
  /** Index (0-based) of the secret that matched. */
  readonly secretIndex: number | undefined;
  /** The delivery's `type` when the body is valid. */
  readonly eventType: string | undefined;
}

/** Input of {@link diagnoseDelivery}. */
export interface DiagnoseOptions {
  readonly request: Pick<CapturedRequest, 'headers' | 'body' | 'notes'>;
  /** Secrets to try, first = current (each ≥ 32 bytes). */
  readonly secrets: readonly string[];
  /** "Now", ms since the epoch. */
  readonly nowMs: number;
}

const TOLERANCE_S = LIMITS.WEBHOOK_TIMESTAMP_TOLERANCE_MS / 1000;
const DELIVERY_ID = /^[A-Za-z0-9_-]{1,128}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;

function seconds(value: number): number {
  return Number(value.toFixed(3));
}

function headerProblems(req: DiagnoseOptions['request']): DiagnosisProblem[] {
  const names = [
    ['X-Service-Signature', WEBHOOK_HEADERS.signature],
    ['X-Service-Timestamp', WEBHOOK_HEADERS.timestamp],
    ['X-Service-Delivery-Id', WEBHOOK_HEADERS.deliveryId],
  ] as const;
  const missing = names.filter(([, h]) => !headerOf(req, h)).map(([n]) => n);
  const out: DiagnosisProblem[] = [];
  if (missing.length > 0) {
    out.push({
      code: 'WEBHOOK_HEADER_MISSING',
      message: `missing header${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`,
      details: { missing },
    });
  }
  const id = headerOf(req, WEBHOOK_HEADERS.deliveryId);
  if (id && !DELIVERY_ID.test(id)) {
    out.push({
      code: 'WEBHOOK_HEADER_MISSING',
      message: 'X-Service-Delivery-Id is malformed: expected 1–128 of A–Z a–z 0–9 - _ (a UUID)',
      details: { malformed: ['X-Service-Delivery-Id'] },
    });
  }
  return out;
}

function timestampProblem(text: string | undefined, nowMs: number): DiagnosisProblem | undefined {
  if (!text) return undefined;
  if (!/^[0-9]{1,12}$/.test(text)) {
    return {
      code: 'WEBHOOK_TIMESTAMP_SKEW',
      message: 'X-Service-Timestamp is not Unix seconds (1 to 12 digits)',
      details: { malformed: true },
    };
  }
  const skew = (nowMs - Number(text) * 1000) / 1000;
  if (Math.abs(skew) * 1000 <= LIMITS.WEBHOOK_TIMESTAMP_TOLERANCE_MS) return undefined;
  const direction = skew > 0 ? 'past' : 'future';
  return {
    code: 'WEBHOOK_TIMESTAMP_SKEW',
    message: `timestamp is ${seconds(Math.abs(skew))} s in the ${direction} (more than the ${TOLERANCE_S} s tolerance; now is ${new Date(nowMs).toISOString()})`,
    hint:
      direction === 'past'
        ? 'a replayed or old capture, or a receiver clock ahead of the sender; pass --now to judge it at another time'
        : 'the sender clock is ahead of the receiver; check NTP on both sides',
    details: { skew_seconds: seconds(Math.abs(skew)), direction, tolerance_seconds: TOLERANCE_S },
  };
}

function malformedSignature(sig: string | undefined): DiagnosisProblem | undefined {
  if (!sig || HEX64.test(sig)) return undefined;
  const nonHex = !/^[0-9a-fA-F]*$/.test(sig);
  return {
    code: 'WEBHOOK_SIGNATURE_INVALID',
    message: `X-Service-Signature is not 64 hex characters (it has ${sig.length} characters${nonHex ? ', some not hex' : ''})`,
    ...(sig.length === 71 && sig.startsWith('sha256=')
      ? { hint: 'drop the "sha256=" prefix: the service sends bare hex' }
      : {}),
    details: { length: sig.length, non_hex: nonHex },
  };
}

/** Bodies a typical alteration may have produced from the signed one. */
function variants(body: Uint8Array, contentLength: string | undefined): [string, Uint8Array][] {
  const text = new TextDecoder().decode(body);
  const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
  const out: [string, Uint8Array][] = [];
  if (/[\r\n]+$/.test(text))
    out.push(['the trailing line break is removed', enc(text.replace(/[\r\n]+$/, ''))]);
  if (
    contentLength !== undefined &&
    /^\d{1,10}$/.test(contentLength) &&
    Number(contentLength) < body.length
  ) {
    out.push([
      `the body is cut to its Content-Length (${contentLength} bytes)`,
      body.subarray(0, Number(contentLength)),
    ]);
  }
  if (text.includes('\r\n')) out.push(['CRLF line ends become LF', enc(text.replaceAll('\r\n', '\n'))]);
  else if (text.includes('\n')) out.push(['LF line ends become CRLF', enc(text.replaceAll('\n', '\r\n'))]);
  try {
    const compact = JSON.stringify(JSON.parse(text));
    if (compact !== text) out.push(['the JSON is re-serialised compactly', enc(compact)]);
  } catch {
    // not JSON: nothing to re-serialise
  }
  return out;
}

async function sign(
  secret: string,
  timestamp: number,
  deliveryId: string,
  body: Uint8Array,
): Promise<string> {
  return (await signWebhook({ secret, timestamp, deliveryId, body })).signature;
}

async function matchIndex(o: DiagnoseOptions, ts: number, id: string, body: Uint8Array, sig: string) {
  for (let i = 0; i < o.secrets.length; i++) {
    if ((await sign(o.secrets[i]!, ts, id, body)) === sig.toLowerCase()) return i;
  }
  return undefined;
}

async function signatureCheck(o: DiagnoseOptions): Promise<{ problem?: DiagnosisProblem; index?: number }> {
  const req = o.request;
  const sig = headerOf(req, WEBHOOK_HEADERS.signature);
  const tsText = headerOf(req, WEBHOOK_HEADERS.timestamp);
  const id = headerOf(req, WEBHOOK_HEADERS.deliveryId);
  if (!sig || !HEX64.test(sig) || !tsText || !/^[0-9]{1,12}$/.test(tsText) || !id || !DELIVERY_ID.test(id)) {
    return {};
  }
  const ts = Number(tsText);
  const index = await matchIndex(o, ts, id, req.body, sig);
  if (index !== undefined) return { index };
  const n = o.secrets.length;
  const message =
    n === 1
      ? 'signature does not match this body under this secret: wrong secret or altered body (the two cannot be told apart cryptographically)'
      : `signature does not match this body under any of the ${n} secrets: wrong secrets or altered body (the two cannot be told apart cryptographically)`;
  for (const [what, body] of variants(req.body, headerOf(req, 'content-length'))) {
    const i = await matchIndex(o, ts, id, body, sig);
    if (i !== undefined) {
      const hint = `it matches ${n === 1 ? 'the secret' : `secret #${i + 1}`} when ${what}: the body was changed after signing (by a proxy, a framework or the capture)`;
      return { problem: { code: 'WEBHOOK_SIGNATURE_INVALID', message, hint, details: { altered: what } } };
    }
  }
  return { problem: { code: 'WEBHOOK_SIGNATURE_INVALID', message, details: { secrets_tried: n } } };
}

function bodyCheck(body: Uint8Array): { problem?: DiagnosisProblem; eventType?: string } {
  if (body.length > LIMITS.WEBHOOK_BODY_MAX_BYTES) {
    return {
      problem: {
        code: 'WEBHOOK_PAYLOAD_TOO_LARGE',
        message: `body is ${body.length} bytes, over the 1 MB cap (${LIMITS.WEBHOOK_BODY_MAX_BYTES} bytes)`,
      },
    };
  }
  try {
    return { eventType: parseWebhookDelivery(body).type };
  } catch (err) {
    const message = isWebhookVerificationError(err) ? err.message : 'body is not a valid delivery';
    return {
      problem: { code: 'WEBHOOK_PAYLOAD_INVALID', message: message.replace(/^The webhook body/, 'body') },
    };
  }
}

async function receiverAnswer(o: DiagnoseOptions): Promise<Diagnosis['receiverAnswer']> {
  const verifier = createWebhookVerifier({ secret: [...o.secrets] });
  try {
    await verifier.verify({ body: o.request.body, headers: headerRecord(o.request), receivedAtMs: o.nowMs });
    return { status: 200 };
  } catch (err) {
    if (isWebhookVerificationError(err)) return { status: err.status, code: err.code };
    throw err;
  }
}

/**
 * Diagnoses one captured delivery against `secrets` at `nowMs`.
 *
 * @throws {@link ConfigurationError} when a secret is shorter than 32 bytes or padded with whitespace.
 * @example
 * ```ts
 * const d = await diagnoseDelivery({ request: parseCapture(bytes), secrets: [secret], nowMs: Date.now() });
 * if (!d.valid) for (const p of d.problems) console.error(p.message);
 * ```
 */
export async function diagnoseDelivery(o: DiagnoseOptions): Promise<Diagnosis> {
  const answer = await receiverAnswer(o); // also validates the secrets first
  const req = o.request;
  const tsText = headerOf(req, WEBHOOK_HEADERS.timestamp);
  const skew = timestampProblem(tsText, o.nowMs);
  const sig = await signatureCheck(o);
  const body = bodyCheck(req.body);
  const problems = [
    ...headerProblems(req),
    ...(skew ? [skew] : []),
    ...[malformedSignature(headerOf(req, WEBHOOK_HEADERS.signature)), sig.problem, body.problem].filter(
      (p): p is DiagnosisProblem => p !== undefined,
    ),
  ];
  if (answer.status !== 200 && problems.length === 0) {
    problems.push({ code: answer.code ?? 'UNKNOWN', message: 'the SDK verifier rejects this delivery' });
  }
  const notes = [...req.notes];
  if (sig.index !== undefined && sig.index > 0) {
    notes.push(
      `the signature matches secret #${sig.index + 1}, not the first: the sender still signs with an older secret`,
    );
  }
  const wellFormedTs = tsText !== undefined && /^[0-9]{1,12}$/.test(tsText);
  return {
    valid: answer.status === 200,
    receiverAnswer: answer,
    problems,
    notes,
    deliveryId: headerOf(req, WEBHOOK_HEADERS.deliveryId),
    timestamp: wellFormedTs ? Number(tsText) : undefined,
    skewSeconds: wellFormedTs ? seconds((o.nowMs - Number(tsText) * 1000) / 1000) : undefined,
    secretIndex: sig.index,
    eventType: body.eventType,
  };
}
