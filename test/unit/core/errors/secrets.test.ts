import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  CryptoError,
  HandlerError,
  RateLimitError,
  ServiceError,
  TimeoutError,
  TransportError,
  ValidationError,
  WebhookVerificationError,
  redactParams,
  redactSecrets,
  toServiceError,
  type AmsError,
} from '../../../../packages/sdk/src/core/errors/index.js';

const AGENT_TOKEN = 'hsk_' + 'aZ09'.repeat(10);
const JWT =
  'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTEiLCJleHAiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLWJ5dGVzLWhlcmU';
const KEY_B64 = 'q83vASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4k=';
const CIPHERTEXT_B64URL = 'Q2lwaGVydGV4dC1ieXRlcy1sb29rLWxpa2UtdGhpcy1hbmQtYXJlLWxvbmctZW5vdWdo';
const SECRETS = [AGENT_TOKEN, JWT, KEY_B64, CIPHERTEXT_B64URL];

const text = `token ${AGENT_TOKEN} jwt ${JWT} key ${KEY_B64} ct ${CIPHERTEXT_B64URL} Authorization: Bearer abc.def`;
const params = {
  token: AGENT_TOKEN,
  nested: { jwt: JWT, list: [KEY_B64, { ct: CIPHERTEXT_B64URL }] },
  [AGENT_TOKEN]: 'secret as a key',
  count: 3,
};

function everyError(): AmsError[] {
  return [
    new ServiceError({ code: 'FORBIDDEN', status: 403, message: text, params }),
    new RateLimitError({ code: 'RATE_LIMITED', status: 429, message: text, params }),
    new TransportError({ code: 'TRANSPORT_NETWORK', message: text }),
    new TimeoutError({ message: text, timeoutMs: 1 }),
    new ValidationError({ message: text, params }),
    new CryptoError({ code: 'DECRYPT_FAILURE', message: text, reason: 'aead' }),
    new WebhookVerificationError({ code: 'WEBHOOK_SIGNATURE_INVALID', message: text, status: 401, params }),
    new HandlerError({ message: text, event: { token: AGENT_TOKEN }, cause: new Error(text) }),
    new ConfigurationError({ message: text, option: 'token' }),
    toServiceError({ status: 400, body: JSON.stringify({ error: { code: 'X', message: text, params } }) }),
  ];
}

describe('no error message ever contains a token, key, password, plaintext or ciphertext', () => {
  it.each(everyError().map((e) => [e.name, e] as const))('%s: message, toJSON and String()', (_name, err) => {
    const surfaces = [err.message, JSON.stringify(err), String(err), JSON.stringify(err.toJSON())];
    for (const surface of surfaces) {
      for (const secret of SECRETS) expect(surface).not.toContain(secret);
      expect(surface).not.toContain('Bearer abc.def');
    }
  });

  it('keeps harmless params (numbers, short ids) intact', () => {
    const err = new ServiceError({
      code: 'VALIDATION_ERROR',
      status: 400,
      message: 'display_name must be 2 to 24 characters',
      params: {
        min: 2,
        max: 24,
        field: 'display_name',
        conversation_id: '0190f0a8-7b3c-7def-8abc-0123456789ab',
      },
    });
    expect(err.message).toBe('display_name must be 2 to 24 characters');
    expect(err.params).toEqual({
      min: 2,
      max: 24,
      field: 'display_name',
      conversation_id: '0190f0a8-7b3c-7def-8abc-0123456789ab',
    });
  });
});

describe('redactSecrets', () => {
  it('replaces each kind of secret with a placeholder', () => {
    expect(redactSecrets(`x ${AGENT_TOKEN} y`)).toBe('x hsk_[redacted] y');
    expect(redactSecrets(JWT)).toBe('[redacted-jwt]');
    expect(redactSecrets('Authorization: Bearer opaque-value')).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('refresh_token=abc123; Path=/auth')).toBe('refresh_token=[redacted]; Path=/auth');
    expect(redactSecrets(`key=${KEY_B64}`)).toBe('key=[redacted]');
    expect(redactSecrets('plain words stay')).toBe('plain words stay');
  });
});

describe('redactParams', () => {
  it('redacts strings at any depth and keys, keeps other values, is safe with __proto__', () => {
    const input = JSON.parse(
      `{"__proto__": {"polluted": "${AGENT_TOKEN}"}, "n": 1, "b": true, "z": null}`,
    ) as Record<string, unknown>;
    const out = redactParams(input);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.stringify(out)).not.toContain(AGENT_TOKEN);
    expect(out['n']).toBe(1);
    expect(out['b']).toBe(true);
    expect(out['z']).toBeNull();
  });

  it('cuts off deep nesting and survives cycles', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    const out = redactParams(cyclic);
    expect(JSON.stringify(out)).toContain('[truncated]');
  });
});

describe('redactSecrets keeps file paths readable', () => {
  it('keeps a long lowercase path but still redacts a key next to it', () => {
    const key = 'q3Zp9vR2kT8mW1xY4bN6cD0eF5gH7jK2lM3nP4rS6tU=';
    const out = redactSecrets(
      `cannot read /home/agentuser/projects/my-agent-service/keys/keys.json (${key})`,
    );
    expect(out).toContain('/home/agentuser/projects/my-agent-service/keys/keys.json');
    expect(out).not.toContain(key);
  });

  it('still redacts base64 that happens to contain slashes', () => {
    const key = 'Ab3/Zx9+Qw7/Er5Ty1Ui2Op3As4Df5Gh6Jk7Lz8Xc9Vb0Nm1Q==';
    expect(redactSecrets(key)).toBe('[redacted]');
  });
});

describe('redactSecrets keeps temp-directory paths (KEY_STORE_CORRUPT named "[redacted].json")', () => {
  const TOKEN = `hsk_${'Zq9'.repeat(13)}x`; // hsk_ + 40 base62
  const KEY = Buffer.from(Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff)).toString('base64');

  it.each([
    '/tmp/ams-agent-keys-KM6CiJ/agent-0190f0a8/keys/keys.json', // mkdtemp suffix with capitals
    '/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/ams-keys-Ab12Cd/agent/keys.json', // macOS $TMPDIR
    '/Users/JohnSmith/Projects/MyAgentProject/agent-keys/keys.json',
  ])('keeps %s in a KEY_STORE_CORRUPT message and still removes a token and a key', (path) => {
    const message = new CryptoError({
      code: 'KEY_STORE_CORRUPT',
      message: `Key store ${path} is corrupt: checksum mismatch (token ${TOKEN}, key ${KEY})`,
      file: path,
    }).message;
    expect(message).toBe(
      `Key store ${path} is corrupt: checksum mismatch (token hsk_[redacted], key [redacted])`,
    );
  });

  it('random temp-dir-like paths survive while tokens and keys beside them are removed (fixed seed)', () => {
    const lower = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/);
    const base62 = (n: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${n}}$`));
    const root = fc.oneof(
      fc.constantFrom('/tmp', '/var/tmp', '/run/user/1000'),
      fc
        .tuple(fc.stringMatching(/^[a-z0-9_]{2}$/), fc.stringMatching(/^[a-z0-9_]{28}$/))
        .map(([a, b]) => `/var/folders/${a}/${b}/T`),
      fc
        .array(fc.stringMatching(/^[A-Z][a-z]{1,8}$/), { minLength: 1, maxLength: 3 })
        .map((words) => `/Users/${words.join('')}`),
      lower.map((user) => `/home/${user}`),
    );
    const tempDir = fc
      .tuple(fc.array(lower, { minLength: 1, maxLength: 3 }), base62(6))
      .map(([prefix, suffix]) => `${prefix.join('-')}-${suffix}`);
    const path = fc
      .tuple(root, tempDir, fc.array(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,15}$/), { maxLength: 3 }))
      .map(([r, t, rest]) => [r, t, ...rest, 'keys.json'].join('/'));
    const secret = fc.oneof(
      base62(40).map((s) => `hsk_${s}`),
      fc.uint8Array({ minLength: 32, maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')),
      fc.uint8Array({ minLength: 32, maxLength: 64 }).map((b) => Buffer.from(b).toString('base64url')),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
    );
    fc.assert(
      fc.property(path, secret, (p, s) => {
        const out = redactSecrets(`Key store ${p} is corrupt (${s})`);
        expect(out).toContain(`Key store ${p} is corrupt (`);
        expect(out).not.toContain(s);
      }),
      { seed: 0x7265646163, numRuns: 500 },
    );
  });
});
