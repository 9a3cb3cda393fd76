/**
 * Black-box helpers for the reference server: start it on 127.0.0.1:0 in
 * virtual time with a fast password hash, call it over real HTTP, and walk the
 * registration and login flows.
 */
import { expect } from 'vitest';
import {
  startReferenceServer,
  type ReferenceServer,
  type ReferenceServerOptions,
} from '../../packages/dev/src/testing/index.js';

/** A cheap scrypt cost for tests that hash many passwords (production keeps the slow default). */
export const TEST_HASHING = { logN: 10, blockSize: 8, parallelization: 1 } as const;

/** Starts a dev-mode server in virtual time with the fast hash. */
export function startTestServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  return startReferenceServer({
    virtualTime: true,
    startTimeMs: Date.parse('2026-03-01T12:00:00.000Z'),
    passwordHashing: TEST_HASHING,
    ...options,
  });
}

/** The error object of an error answer. */
export interface WireError {
  code: string;
  message: string;
  i18n_key: string;
  params: Record<string, unknown>;
}

/** A parsed answer. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** `data` of a success answer. */
  data: Record<string, unknown> & { [index: number]: Record<string, unknown> };
  /** `error` of an error answer. */
  error: WireError | undefined;
  /** The whole parsed body (undefined when not JSON). */
  json: unknown;
}

/** How to call an endpoint. */
export interface CallOptions {
  /** A JSON body (serialised, sent as application/json). */
  json?: unknown;
  /** A raw body, sent as-is. */
  raw?: string | Uint8Array;
  /** Content type for `raw` (none when omitted and raw is bytes). */
  contentType?: string;
  /** Bearer access token. */
  token?: string;
  /** Refresh token sent as the `refresh_token` cookie. */
  refreshToken?: string;
  headers?: Record<string, string>;
}

/** Calls `method path` on `server`. */
export async function call(server: { url: string }, method: string, path: string, options: CallOptions = {}) {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  } else if (options.raw !== undefined) {
    body = typeof options.raw === 'string' ? options.raw : new Uint8Array(options.raw);
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  }
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.refreshToken !== undefined) headers['cookie'] = `refresh_token=${options.refreshToken}`;
  const res = await fetch(server.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const record = (json ?? {}) as { data?: ApiResponse['data']; error?: WireError };
  const out: ApiResponse = {
    status: res.status,
    headers: res.headers,
    text,
    data: record.data ?? ({} as ApiResponse['data']),
    error: record.error,
    json,
  };
  return out;
}

/** Asserts an error answer with `status` and `code` and the full error-object shape. */
export function expectError(res: ApiResponse, status: number, code: string): WireError {
  expect(res.status, res.text).toBe(status);
  expect(res.error?.code, res.text).toBe(code);
  expect(res.error).toEqual({
    code,
    message: expect.any(String),
    i18n_key: `errors.${code.toLowerCase()}`,
    params: expect.any(Object),
  });
  expect(res.text).not.toMatch(/at .+\.(ts|js):\d+/);
  return res.error!;
}

/** The refresh token from a `set-cookie` answer. */
export function refreshTokenOf(res: ApiResponse): string {
  const cookie = res.headers.get('set-cookie') ?? '';
  const m = /^refresh_token=([^;]*);/.exec(cookie);
  if (m === null) throw new Error(`no refresh cookie in ${JSON.stringify(cookie)}`);
  return m[1]!;
}

/** A signed-in account. */
export interface Session {
  email: string;
  password: string;
  userId: string;
  deviceId: string;
  accessToken: string;
  refreshToken: string;
}

/** Sessions from a token answer. */
export function sessionOf(res: ApiResponse, email: string, password: string): Session {
  expect(res.status, res.text).toBeLessThan(300);
  return {
    email,
    password,
    userId: String(res.data['user_id']),
    deviceId: String(res.data['device_id']),
    accessToken: String(res.data['access_token']),
    refreshToken: refreshTokenOf(res),
  };
}

let counter = 0;

/** A fresh, unique address. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** Requests a code and returns it from the dev mailbox. */
export async function requestCode(
  server: ReferenceServer,
  email: string,
  scene: 'register' | 'login' | 'reset',
) {
  const res = await call(server, 'POST', '/auth/send-code', {
    json: { email, scene, turnstile_token: 'ok' },
  });
  expect(res.status, res.text).toBe(200);
  const code = server.control.latestCode(email, scene);
  if (code === undefined) throw new Error('no code was sent');
  return code;
}

/** Registers a new account through send-code + register; returns the session. */
export async function registerUser(
  server: ReferenceServer,
  options: {
    email?: string;
    password?: string;
    displayName?: string;
    deviceId?: string;
    deviceName?: string;
  } = {},
): Promise<Session> {
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? 'correct horse battery';
  const code = await requestCode(server, email, 'register');
  const res = await call(server, 'POST', '/auth/register', {
    json: {
      email,
      code,
      account_password: password,
      display_name: options.displayName ?? 'Test User',
      device_locale: 'en-GB',
      turnstile_token: 'ok',
      ...(options.deviceId === undefined ? {} : { device_id: options.deviceId }),
      ...(options.deviceName === undefined ? {} : { device_name: options.deviceName }),
    },
  });
  expect(res.status, res.text).toBe(201);
  return sessionOf(res, email, password);
}

/** A password login answer. */
export function passwordLogin(
  server: ReferenceServer,
  email: string,
  password: string,
  device: { deviceId?: string; deviceName?: string } = {},
): Promise<ApiResponse> {
  return call(server, 'POST', '/auth/login', {
    json: {
      email,
      account_password: password,
      turnstile_token: 'ok',
      ...(device.deviceId === undefined ? {} : { device_id: device.deviceId }),
      ...(device.deviceName === undefined ? {} : { device_name: device.deviceName }),
    },
  });
}
