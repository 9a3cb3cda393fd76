import { describe, expect, it } from 'vitest';
import { createMemoryUserStore } from '../../../../packages/dev/src/server/store/memory-users.js';
import { createMemoryCodeStore } from '../../../../packages/dev/src/server/store/memory-misc.js';

const policy = { maxFailures: 5, lockMs: 900_000 };
const newUser = (email: string) => ({
  userId: `id-${email}`,
  email,
  emailVerified: true,
  displayName: 'Ada',
  deviceLocale: 'en',
  passwordHash: 'h',
  createdAtMs: 0,
});

describe('memory user store: the lock', () => {
  it('locks on the 5th failure, once, and not again during the lock', async () => {
    const users = createMemoryUserStore();
    await users.create(newUser('a@x.io'));
    const outcomes = [];
    for (let i = 0; i < 7; i++) outcomes.push(await users.recordLoginFailure('id-a@x.io', 1_000, policy));
    expect(outcomes.slice(0, 4)).toEqual([1, 2, 3, 4].map((n) => ({ locked: false, failedLogins: n })));
    expect(outcomes[4]).toEqual({ locked: true, lockedUntilMs: 901_000, newlyLocked: true });
    expect(outcomes[5]).toEqual({ locked: true, lockedUntilMs: 901_000, newlyLocked: false });
    expect((await users.byId('id-a@x.io'))?.lockCount).toBe(1);
  });

  it('a success resets the count but cannot end a lock', async () => {
    const users = createMemoryUserStore();
    await users.create(newUser('b@x.io'));
    for (let i = 0; i < 4; i++) await users.recordLoginFailure('id-b@x.io', 0, policy);
    expect(await users.recordLoginSuccess('id-b@x.io', 0)).toBe('ok');
    expect((await users.byId('id-b@x.io'))?.failedLogins).toBe(0);
    for (let i = 0; i < 5; i++) await users.recordLoginFailure('id-b@x.io', 0, policy);
    expect(await users.recordLoginSuccess('id-b@x.io', 899_999)).toEqual({ lockedUntilMs: 900_000 });
    expect(await users.recordLoginSuccess('id-b@x.io', 900_000)).toBe('ok');
  });

  it('after a lock ends, counting starts from zero', async () => {
    const users = createMemoryUserStore();
    await users.create(newUser('c@x.io'));
    for (let i = 0; i < 5; i++) await users.recordLoginFailure('id-c@x.io', 0, policy);
    expect(await users.recordLoginFailure('id-c@x.io', 900_000, policy)).toEqual({
      locked: false,
      failedLogins: 1,
    });
  });

  it('refuses a second account with the same email', async () => {
    const users = createMemoryUserStore();
    await users.create(newUser('d@x.io'));
    expect(await users.create({ ...newUser('d@x.io'), userId: 'other' })).toBe('email_taken');
  });
});

describe('memory code store', () => {
  it('single use, expiring, limited attempts', async () => {
    const codes = createMemoryCodeStore();
    await codes.put('e', 'login', '123456', 1_000, 2);
    expect(await codes.consume('e', 'register', '123456', 0)).toBe('missing');
    expect(await codes.consume('e', 'login', '000000', 0)).toBe('invalid');
    expect(await codes.consume('e', 'login', '123456', 0)).toBe('ok');
    expect(await codes.consume('e', 'login', '123456', 0)).toBe('missing');
    await codes.put('e', 'login', '123456', 1_000, 2);
    expect(await codes.consume('e', 'login', '123456', 1_000)).toBe('expired');
    await codes.put('e', 'login', '123456', 1_000, 2);
    expect(await codes.consume('e', 'login', '1', 0)).toBe('invalid');
    expect(await codes.consume('e', 'login', '2', 0)).toBe('too_many_attempts');
    expect(await codes.consume('e', 'login', '123456', 0)).toBe('missing');
  });
});
