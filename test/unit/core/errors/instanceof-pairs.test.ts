/**
 * Issue #23: each error class matches itself and its real subclasses only,
 * whether the error comes from this copy of the package or from another one
 * (the ESM and CJS builds loaded side by side). A property over every pair of
 * error classes the root entry exports, with errors built from random options.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import * as root from '../../../../packages/sdk/src/index.js';
import * as errors from '../../../../packages/sdk/src/core/errors/index.js';

type ErrorsModule = typeof errors;
type AnyClass = abstract new (...args: never[]) => Error;

const text = fc.string({ maxLength: 40 });
const status = fc.integer({ min: 400, max: 599 });
const cause = fc.option(fc.string(), { nil: undefined });

/** One way to build an instance of every concrete error class, from random options. */
function factories(m: ErrorsModule): Record<string, fc.Arbitrary<Error>> {
  return {
    ServiceError: fc
      .record({ code: fc.constantFrom(...m.ERROR_CODES), status, message: text, cause })
      .map((o) => new m.ServiceError(o)),
    RateLimitError: fc
      .record({ message: text, retryAfterMs: fc.option(fc.nat(), { nil: undefined }) })
      .map((o) => new m.RateLimitError({ code: 'RATE_LIMITED', status: 429, ...o })),
    StreamError: fc
      .record({ reason: fc.constantFrom(...m.STREAM_ERROR_VALUES), message: text, streamId: text, cause })
      .map((o) => new m.StreamError({ ...o, code: 'STREAM_TIMEOUT', status: 408 })),
    ManifestTooLargeError: fc
      .record({ sizeBytes: fc.nat(), maxBytes: fc.nat(), clientSide: fc.boolean(), cause })
      .map((o) => new m.ManifestTooLargeError(o)),
    TransportError: fc
      .record({
        code: fc.constantFrom(
          'TRANSPORT_NETWORK',
          'TRANSPORT_BAD_RESPONSE',
          'TRANSPORT_CLOSED',
          'TRANSPORT_PROTOCOL',
        ) as fc.Arbitrary<errors.TransportErrorCode>,
        message: text,
        cause,
      })
      .map((o) => new m.TransportError(o)),
    TimeoutError: fc.record({ message: text, timeoutMs: fc.nat(), cause }).map((o) => new m.TimeoutError(o)),
    ValidationError: fc.record({ message: text, cause }).map((o) => new m.ValidationError(o)),
    CryptoError: fc
      .record({
        code: fc.constantFrom(
          'DECRYPT_FAILURE',
          'KEY_STORE_IO',
          'FILE_CORRUPT',
        ) as fc.Arbitrary<errors.CryptoErrorCode>,
        message: text,
        cause,
      })
      .map((o) => new m.CryptoError(o)),
    FileIntegrityError: fc
      .record({
        failure: fc.constantFrom(
          'header',
          'chunk',
          'truncated',
          'trailing',
          'sha256',
          'size',
        ) as fc.Arbitrary<errors.FileIntegrityFailure>,
        message: text,
        cause,
      })
      .map((o) => new m.FileIntegrityError(o)),
    WebhookVerificationError: fc
      .record({ message: text, status })
      .map((o) => new m.WebhookVerificationError({ code: 'WEBHOOK_SIGNATURE_INVALID', ...o })),
    HandlerError: fc.record({ message: text, cause }).map((o) => new m.HandlerError({ ...o, event: {} })),
    ConfigurationError: fc.record({ message: text, cause }).map((o) => new m.ConfigurationError(o)),
  };
}

/** The error classes the root entry exports: every export whose prototype is an Error's. */
const exportedClasses = Object.entries(root as Record<string, unknown>).filter(
  (entry): entry is [string, AnyClass] =>
    typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
);

/** True when `Sub` is `Base` or extends it (the prototype chain of the classes themselves). */
function extendsClass(Sub: AnyClass, Base: AnyClass): boolean {
  return Sub === Base || Object.prototype.isPrototypeOf.call(Base.prototype, Sub.prototype);
}

describe('instanceof over every pair of exported error classes', () => {
  it('the table covers every exported error class', () => {
    const concrete = exportedClasses.map(([name]) => name).filter((name) => name !== 'AmsError');
    expect(concrete.sort()).toEqual(Object.keys(factories(errors)).sort());
    expect(exportedClasses.map(([name]) => name)).toContain('AmsError');
  });

  it('an error is an instance of B exactly when its class is B or extends B (same copy)', () => {
    const made = factories(errors);
    for (const [nameA] of exportedClasses) {
      const arb = made[nameA];
      if (arb === undefined) continue; // AmsError is abstract: reached through every subclass.
      const A = exportedClasses.find(([n]) => n === nameA)![1];
      fc.assert(
        fc.property(arb, (err) => {
          for (const [nameB, B] of exportedClasses) {
            expect(err instanceof B, `${nameA} instanceof ${nameB}`).toBe(extendsClass(A, B));
          }
          expect(err instanceof Error).toBe(true);
        }),
        { numRuns: 20 },
      );
    }
  });

  it('the same holds for errors made by a second copy of the package', async () => {
    vi.resetModules();
    const other = (await import('../../../../packages/sdk/src/core/errors/index.js')) as ErrorsModule;
    expect(other.ServiceError).not.toBe(errors.ServiceError); // really a second copy
    const made = factories(other);
    for (const [nameA, arb] of Object.entries(made)) {
      const A = exportedClasses.find(([n]) => n === nameA)![1];
      fc.assert(
        fc.property(arb, (foreign) => {
          for (const [nameB, B] of exportedClasses) {
            expect(foreign instanceof B, `foreign ${nameA} instanceof ${nameB}`).toBe(extendsClass(A, B));
          }
          // And this copy's errors, seen from the other copy.
          const OtherB = other[nameA as keyof ErrorsModule] as unknown as AnyClass;
          expect(foreign instanceof OtherB).toBe(true);
        }),
        { numRuns: 10 },
      );
    }
  });

  it('a user subclass without a class id is matched by its prototype chain only', () => {
    class MyError extends errors.ServiceError {}
    const plain = new errors.ServiceError({ code: 'NOT_FOUND', status: 404, message: 'x' });
    const mine = new MyError({ code: 'NOT_FOUND', status: 404, message: 'x' });
    expect(plain instanceof MyError).toBe(false);
    expect(mine instanceof MyError).toBe(true);
    expect(mine instanceof errors.ServiceError).toBe(true);
    expect(mine instanceof errors.StreamError).toBe(false);
  });

  it('the four reported cases of issue #23 are false', () => {
    const service = new errors.ServiceError({ code: 'NOT_FOUND', status: 404, message: 'x' });
    const limited = new errors.RateLimitError({ code: 'RATE_LIMITED', status: 429, message: 'x' });
    const crypto = new errors.CryptoError({ code: 'DECRYPT_FAILURE', message: 'x' });
    expect(service instanceof errors.StreamError).toBe(false);
    expect(service instanceof errors.ManifestTooLargeError).toBe(false);
    expect(limited instanceof errors.StreamError).toBe(false);
    expect(crypto instanceof errors.FileIntegrityError).toBe(false);
  });
});
