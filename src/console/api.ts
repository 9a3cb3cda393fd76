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

/** The `curl` line of a call (the token as an environment variable, never its value). */
export function curlLine(origin: string, call: ConsoleCall): string {
  const parts = [`curl -sS -X ${call.method} ${shellQuote(origin + call.path)}`];
  if (call.auth === true) parts.push(`-H "authorization: Bearer $AMS_ACCESS_TOKEN"`);
  if (call.body !== undefined) {
    parts.push(`-H 'content-type: application/json'`, `-d ${shellQuote(JSON.stringify(call.body))}`);
  }
  return parts.join(' ');
}

/** Calls the server; resolves with `data` of the answer. */
export async function request<T>(call: ConsoleCall, accessToken?: string): Promise<T> {
  const headers: Record<string, string> = {};
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  if (call.auth === true && accessToken !== undefined) headers['authorization'] = `Bearer ${accessToken}`;
  const res = await fetch(call.path, {
    method: call.method,
    headers,
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    credentials: 'omit',
    cache: 'no-store',
  });
  const json = (await res.json().catch(() => ({}))) as {
    data?: T;
    error?: { code?: string; message?: string; params?: Record<string, unknown> };
  };
  if (!res.ok) {
    throw new ConsoleCallError(
      json.error?.code ?? 'HTTP_' + res.status,
      json.error?.message ?? '',
      res.status,
      json.error?.params,
    );
  }
  return json.data as T;
}

/** Fetches raw bytes (an object) with the access token in the header. */
export async function requestBytes(path: string, accessToken: string | undefined): Promise<Uint8Array> {
  const res = await fetch(path, {
    headers: accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` },
    credentials: 'omit',
    cache: 'no-store',
  });
  if (!res.ok) {
    const json = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    throw new ConsoleCallError(
      json.error?.code ?? 'HTTP_' + res.status,
      json.error?.message ?? '',
      res.status,
    );
  }
  return new Uint8Array(await res.arrayBuffer());
}
