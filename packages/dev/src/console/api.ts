/**
 * The console's calls to the server it was served by: the REST API with the
 * dev user's access token, and the dev-only control API. Every call can be
 * shown as a `curl` line; a token is shown as `$AMS_ACCESS_TOKEN`, never its value.
 *
 * @module
 */

/** One request from the console. */
export interface ConsoleCall {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body?: Readonly<Record<string, unknown>>;
  /** Send the dev user's access token (`Authorization: Bearer …`). */
  readonly auth?: boolean;
}

/** A refused call: the service's error code and message. */
export class ConsoleCallError extends Error {
  override readonly name = 'ConsoleCallError';
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    /** The error's `params` (e.g. `retry_after` of a 429). */
    readonly params: Readonly<Record<string, unknown>> = {},
  ) {
    super(`${code}: ${message}`);
  }
}

/** `text` as one single-quoted shell word (a `'` inside becomes `'\''`). */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** Body fields never shown on the page (a password, a token, a secret): their value becomes `…`. */
const SECRET_FIELD = /password|token|secret/i;

/** A `JSON.stringify` replacer that hides {@link SECRET_FIELD} values. */
function hideSecrets(key: string, value: unknown): unknown {
  return key !== '' && SECRET_FIELD.test(key) && typeof value === 'string' ? '…' : value;
}

/**
 * The `curl` line of a call (the token as an environment variable, never its
 * value; passwords, tokens and secrets in the body as `…`).
 */
export function curlLine(origin: string, call: ConsoleCall): string {
  const parts = [`curl -sS -X ${call.method} ${shellQuote(origin + call.path)}`];
  if (call.auth === true) parts.push(`-H "authorization: Bearer $AMS_ACCESS_TOKEN"`);
  if (call.body !== undefined) {
    parts.push(
      `-H 'content-type: application/json'`,
      `-d ${shellQuote(JSON.stringify(call.body, hideSecrets))}`,
    );
  }
  return parts.join(' ');
}

/** The service's answer body: `data`, or `error`. */
interface AnswerBody<T> {
  readonly data?: T;
  readonly error?: { code?: string; message?: string; params?: Record<string, unknown> };
}

/** The refusal of a non-2xx answer (its error body, or just the status). */
async function refusal(res: Response): Promise<ConsoleCallError> {
  const json = (await res.json().catch(() => ({}))) as AnswerBody<unknown>;
  return new ConsoleCallError(
    json.error?.code ?? 'HTTP_' + res.status,
    json.error?.message ?? '',
    res.status,
    json.error?.params,
  );
}

/** `data` of a 2xx answer; throws the {@link ConsoleCallError} of any other. */
async function dataOf<T>(res: Response): Promise<T> {
  if (!res.ok) throw await refusal(res);
  return ((await res.json().catch(() => ({}))) as AnswerBody<T>).data as T;
}

/** The headers of a request, with the access token when it is to be sent. */
function headersOf(contentType: string | undefined, accessToken: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (accessToken !== undefined) headers['authorization'] = `Bearer ${accessToken}`;
  return headers;
}

/** Calls the server; resolves with `data` of the answer. */
export async function request<T>(call: ConsoleCall, accessToken?: string): Promise<T> {
  const res = await fetch(call.path, {
    method: call.method,
    headers: headersOf(
      call.body === undefined ? undefined : 'application/json',
      call.auth === true ? accessToken : undefined,
    ),
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    credentials: 'omit',
    cache: 'no-store',
  });
  return dataOf<T>(res);
}

/** Fetches raw bytes (an object) with the access token in the header. */
export async function requestBytes(path: string, accessToken: string | undefined): Promise<Uint8Array> {
  const res = await fetch(path, {
    headers: headersOf(undefined, accessToken),
    credentials: 'omit',
    cache: 'no-store',
  });
  if (!res.ok) throw await refusal(res);
  return new Uint8Array(await res.arrayBuffer());
}

/** Posts raw bytes (an upload) with the access token in the header; resolves with `data` of the answer. */
export async function requestUpload<T>(
  path: string,
  body: Uint8Array,
  accessToken: string | undefined,
): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: headersOf('application/octet-stream', accessToken),
    body: body as Uint8Array<ArrayBuffer>,
    credentials: 'omit',
    cache: 'no-store',
  });
  return dataOf<T>(res);
}
