import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AmsError,
  ConfigurationError,
  CryptoError,
  ERROR_BRAND,
  HandlerError,
  RateLimitError,
  ServiceError,
  TimeoutError,
  TransportError,
  ValidationError,
  WebhookVerificationError,
  isAmsError,
  isConfigurationError,
  isCryptoError,
  isHandlerError,
  isRateLimitError,
  isServiceError,
  isTimeoutError,
  isTransportError,
  isValidationError,
  isWebhookVerificationError,
} from '../../../../packages/sdk/src/core/errors/index.js';

const samples = {
  service: new ServiceError({ code: 'RELATION_REVOKED', status: 403, message: 'revoked' }),
  rate_limit: new RateLimitError({
    code: 'RATE_LIMITED',
    status: 429,
    message: 'slow down',
    retryAfterMs: 500,
  }),
  transport: new TransportError({ code: 'TRANSPORT_NETWORK', message: 'reset' }),
  timeout: new TimeoutError({ message: 'late', timeoutMs: 10_000 }),
  validation: new ValidationError({ message: 'bad', issues: [{ path: ['a'], message: 'Required' }] }),
  crypto: new CryptoError({ code: 'DECRYPT_FAILURE', message: 'could not open', reason: 'aead' }),
  webhook_verification: new WebhookVerificationError({
    code: 'WEBHOOK_SIGNATURE_INVALID',
    message: 'bad signature',
    status: 401,
  }),
  handler: new HandlerError({
    message: 'handler threw',
    event: { type: 'message.new' },
    cause: new Error('x'),
  }),
  configuration: new ConfigurationError({ message: 'secret is too short', option: 'secret' }),
} as const;

const guards = {
  service: isServiceError,
  rate_limit: isRateLimitError,
  transport: isTransportError,
  timeout: isTimeoutError,
  validation: isValidationError,
  crypto: isCryptoError,
  webhook_verification: isWebhookVerificationError,
  handler: isHandlerError,
  configuration: isConfigurationError,
} as const;

describe('error classes', () => {
  it('carry kind, code, name and are Errors', () => {
    for (const [kind, err] of Object.entries(samples)) {
      expect(err).toBeInstanceOf(Error);
      expect(err).toBeInstanceOf(AmsError);
      expect(err.kind).toBe(kind);
      expect(typeof err.code).toBe('string');
      expect(err.name).toMatch(/Error$/);
      expect(err[ERROR_BRAND]).toBe(true);
    }
    expect(samples.timeout.code).toBe('TIMEOUT');
    expect(samples.handler.code).toBe('HANDLER_FAILED');
    expect(samples.configuration.code).toBe('CONFIGURATION_ERROR');
    expect(samples.validation.code).toBe('VALIDATION_ERROR');
    expect(samples.crypto.reason).toBe('aead');
    expect(samples.crypto.params).toEqual({ reason: 'aead' });
    expect(samples.configuration.option).toBe('secret');
    expect(samples.timeout.timeoutMs).toBe(10_000);
    expect(samples.rate_limit.retryAfterMs).toBe(500);
  });

  it('freezes params', () => {
    expect(Object.isFrozen(samples.crypto.params)).toBe(true);
  });
});

describe('guards', () => {
  it('each guard accepts its own class and rejects the others', () => {
    for (const [guardKind, guard] of Object.entries(guards)) {
      for (const [kind, err] of Object.entries(samples)) {
        // A rate-limit error is also a service error.
        const expected = guardKind === kind || (guardKind === 'service' && kind === 'rate_limit');
        expect((guard as (e: unknown) => boolean)(err), `${guardKind}(${kind})`).toBe(expected);
      }
      expect(isAmsError(samples[guardKind as keyof typeof samples])).toBe(true);
    }
  });

  it('reject non-SDK values', () => {
    const others: unknown[] = [null, undefined, 0, 'ServiceError', new Error('x'), { kind: 'service' }, []];
    for (const v of others) {
      expect(isAmsError(v)).toBe(false);
      for (const guard of Object.values(guards)) expect((guard as (e: unknown) => boolean)(v)).toBe(false);
    }
  });

  it('filter by code and narrow it', () => {
    const err: unknown = samples.service;
    expect(isServiceError(err, 'RELATION_REVOKED')).toBe(true);
    expect(isServiceError(err, 'FORBIDDEN')).toBe(false);
    expect(isRateLimitError(samples.rate_limit, 'RATE_LIMITED')).toBe(true);
    expect(isRateLimitError(samples.rate_limit, 'MESSAGE_RATE_LIMITED')).toBe(false);
    expect(isCryptoError(samples.crypto, 'DECRYPT_FAILURE')).toBe(true);
    expect(isCryptoError(samples.crypto, 'KEY_STORE_IO')).toBe(false);
    if (isServiceError(err, 'RELATION_REVOKED')) {
      expectTypeOf(err.code).toEqualTypeOf<'RELATION_REVOKED'>();
      expectTypeOf(err.status).toEqualTypeOf<number>();
    }
    if (isCryptoError(err, 'DECRYPT_FAILURE')) expectTypeOf(err.code).toEqualTypeOf<'DECRYPT_FAILURE'>();
  });

  it('recognise an error from a second copy of the package (same Symbol.for brand, other prototype)', () => {
    // What a CJS copy's error looks like to the ESM copy: not an instance of our
    // classes, but branded with the global symbol and carrying kind/code.
    const foreign: unknown = {
      [Symbol.for('agent-messaging-sdk.error')]: true,
      kind: 'rate_limit',
      code: 'MESSAGE_RATE_LIMITED',
      status: 429,
      message: 'slow down',
      retryAfterMs: 200,
    };
    expect(isAmsError(foreign)).toBe(true);
    expect(isServiceError(foreign)).toBe(true);
    expect(isRateLimitError(foreign, 'MESSAGE_RATE_LIMITED')).toBe(true);
    expect(isTransportError(foreign)).toBe(false);

    const foreignCrypto: unknown = {
      [Symbol.for('agent-messaging-sdk.error')]: true,
      kind: 'crypto',
      code: 'KEY_STORE_IO',
    };
    expect(isCryptoError(foreignCrypto, 'KEY_STORE_IO')).toBe(true);
  });

  it('instanceof agrees with the guards, for this copy and for a foreign copy', () => {
    const classes = {
      service: ServiceError,
      rate_limit: RateLimitError,
      transport: TransportError,
      timeout: TimeoutError,
      validation: ValidationError,
      crypto: CryptoError,
      webhook_verification: WebhookVerificationError,
      handler: HandlerError,
      configuration: ConfigurationError,
    } as const;
    for (const [kind, err] of Object.entries(samples)) {
      // What another copy's error looks like to this one: the global brand and
      // the lineage of class ids (nearest first), not our prototypes.
      const lineage =
        kind === 'rate_limit' ? ['RateLimitError', 'ServiceError', 'AmsError'] : [err.name, 'AmsError'];
      const foreign = {
        [Symbol.for('agent-messaging-sdk.error')]: true,
        [Symbol.for('agent-messaging-sdk.error.lineage')]: lineage,
        kind,
        code: err.code,
      };
      for (const [classKind, Class] of Object.entries(classes)) {
        const guard = guards[classKind as keyof typeof guards] as (e: unknown) => boolean;
        expect(err instanceof Class, `${kind} instanceof ${Class.name}`).toBe(guard(err));
        expect(foreign instanceof Class, `foreign ${kind} instanceof ${Class.name}`).toBe(guard(foreign));
      }
      expect(foreign instanceof AmsError).toBe(true);
      expect(foreign instanceof Error).toBe(false);
    }
    for (const v of [null, undefined, 1, 'x', new Error('x'), { kind: 'service' }]) {
      expect(v instanceof AmsError).toBe(false);
      expect(v instanceof ServiceError).toBe(false);
    }
    expect({ [Symbol.for('agent-messaging-sdk.error')]: 1, kind: 'service' } instanceof ServiceError).toBe(
      false,
    );
    // The brand alone, without a lineage, makes no instance.
    expect({ [Symbol.for('agent-messaging-sdk.error')]: true, kind: 'service' } instanceof ServiceError).toBe(
      false,
    );
  });

  it('do not accept a look-alike with a different or truthy-but-not-true brand', () => {
    expect(isAmsError({ [Symbol('agent-messaging-sdk.error')]: true, kind: 'service' })).toBe(false);
    expect(isAmsError({ [Symbol.for('agent-messaging-sdk.error')]: 1, kind: 'service' })).toBe(false);
    expect(isAmsError({ [Symbol.for('agent-messaging-sdk.error')]: true })).toBe(false);
  });
});
