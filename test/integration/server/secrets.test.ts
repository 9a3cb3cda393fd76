import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  call,
  passwordLogin,
  registerUser,
  requestCode,
  startTestServer,
  type Session,
} from '../../helpers/server-http.js';

const lines: string[] = [];
let server: ReferenceServer;
let session: Session;
const codes: string[] = [];

beforeAll(async () => {
  const capture = (level: string) => (m: string) => void lines.push(`${level} ${m}`);
  server = await startTestServer({
    logger: { info: capture('info'), warn: capture('warn'), error: capture('error') },
  });
  session = await registerUser(server, { password: 'hunter2 but longer' });
  codes.push(server.control.latestCode(session.email)!);
  await passwordLogin(server, session.email, 'a wrong password!');
  codes.push(await requestCode(server, session.email, 'login'));
  await call(server, 'POST', '/auth/login-code', { json: { email: session.email, code: codes[1] } });
  const rotated = await call(server, 'POST', '/auth/refresh', { refreshToken: session.refreshToken });
  expect(rotated.status).toBe(200);
  // Reusing the old refresh token is logged (as a warning) and revokes the device.
  await call(server, 'POST', '/auth/refresh', { refreshToken: session.refreshToken });
});
afterAll(() => server.close());

describe('secrets stay out of logs and answers', () => {
  it('the log mentions the reuse but no password, code or token', () => {
    expect(lines.some((l) => l.startsWith('warn ') && l.includes('reuse'))).toBe(true);
    const log = lines.join('\n');
    for (const secret of [
      'hunter2 but longer',
      'a wrong password!',
      ...codes,
      session.refreshToken,
      session.accessToken,
    ]) {
      expect(log).not.toContain(secret);
    }
  });

  it('error answers never echo submitted values', async () => {
    const res = await call(server, 'POST', '/auth/register', {
      json: {
        email: 'x@example.com',
        code: '123456',
        account_password: 'tiny',
        display_name: 'secret-name-value-xyz',
      },
    });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('tiny');
    expect(res.text).not.toContain('secret-name-value-xyz');
    const login = await passwordLogin(server, session.email, 'another wrong one');
    expect(login.text).not.toContain('another wrong one');
  });
});
