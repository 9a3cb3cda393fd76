/**
 * The capability manifest schema, its canonical size and the size verdict:
 * examples, then properties with malformed input (every outcome is a
 * manifest or a ValidationError, never a crash or another error).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidationError, LIMITS, ManifestTooLargeError } from '../../../../packages/sdk/src/index.js';
import {
  canonicalJson,
  manifestSizeBytes,
  manifestSizeVerdict,
  parseCapabilityManifest,
  checkManifest,
  type CapabilityManifest,
} from '../../../../packages/sdk/src/protocol.js';
import { manifestOfSize, sampleManifest } from '../../../fixtures/manifests/manifests.js';

function outcome(input: unknown): 'ok' | 'invalid' {
  try {
    parseCapabilityManifest(input);
    return 'ok';
  } catch (err) {
    if (isValidationError(err)) return 'invalid';
    throw err;
  }
}

describe('parseCapabilityManifest', () => {
  it('accepts a well-formed manifest', () => {
    expect(parseCapabilityManifest(sampleManifest())).toEqual(sampleManifest());
  });

  it.each<[string, (m: CapabilityManifest) => unknown]>([
    ['an unknown field', (m) => ({ ...m, extra: 1 })],
    ['a bad version label', (m) => ({ ...m, version: 'v1' })],
    ['an empty name', (m) => ({ ...m, name: '' })],
    ['an upper-case tool name', (m) => ({ ...m, tools: [{ ...m.tools[0]!, name: 'Forecast' }] })],
    ['a duplicate tool', (m) => ({ ...m, tools: [m.tools[0]!, m.tools[0]!] })],
    [
      'an input schema that is not an object schema',
      (m) => ({
        ...m,
        tools: [{ ...m.tools[0]!, input_schema: { type: 'string' } }],
      }),
    ],
    ['a zero timeout', (m) => ({ ...m, tools: [{ ...m.tools[0]!, timeout_ms: 0 }] })],
    ['an unknown data scope', (m) => ({ ...m, data_scopes: ['files.read'] })],
    ['a duplicate data scope', (m) => ({ ...m, data_scopes: ['profile.read', 'profile.read'] })],
    [
      'a non-finite number in the input schema',
      (m) => ({
        ...m,
        tools: [{ ...m.tools[0]!, input_schema: { type: 'object', maximum: Number.POSITIVE_INFINITY } }],
      }),
    ],
  ])('refuses %s with a ValidationError naming the path, not the value', (_name, change) => {
    const bad = change(sampleManifest());
    expect(outcome(bad)).toBe('invalid');
    try {
      parseCapabilityManifest(bad);
    } catch (err) {
      expect(isValidationError(err) && err.issues.length).toBeGreaterThan(0);
    }
  });

  it('refuses an input schema nested deeper than 32 levels', () => {
    let deep: Record<string, unknown> = { type: 'object' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { x: deep } };
    const m = sampleManifest();
    expect(outcome({ ...m, tools: [{ ...m.tools[0]!, input_schema: deep }] })).toBe('invalid');
  });

  it('property: arbitrary JSON values are a manifest or a ValidationError', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => void outcome(v)));
  });

  it('property: a manifest with one field replaced by any JSON value never crashes', () => {
    const keys = ['name', 'description', 'version', 'tools', 'data_scopes'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.jsonValue(), (key, value) => {
        const result = outcome({ ...sampleManifest(), [key]: value });
        if (result === 'ok')
          expect(parseCapabilityManifest({ ...sampleManifest(), [key]: value })).toBeTruthy();
      }),
    );
  });

  it('property: tools with arbitrary records are a manifest or a ValidationError', () => {
    const tool = fc.record(
      {
        name: fc.oneof(fc.string(), fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/)),
        description: fc.string(),
        input_schema: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.constant({ type: 'object' })),
        timeout_ms: fc.oneof(fc.integer(), fc.double()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(tool, { maxLength: 4 }), (tools) => void outcome({ ...sampleManifest(), tools })),
    );
  });
});

describe('canonical size', () => {
  it('sorts keys at every level and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'é' } })).toBe(
      '{"a":{"c":"é","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(manifestSizeBytes({ a: 'é' })).toBe(new TextEncoder().encode('{"a":"é"}').length);
  });

  it('property: the size does not depend on key order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (d) => {
        const reversed = Object.fromEntries(Object.entries(d).reverse());
        expect(manifestSizeBytes(reversed)).toBe(manifestSizeBytes(d));
      }),
    );
  });

  it('verdicts at the edges: below 64 KB ok, 64 KB warn, 128 KB warn, above too_large', () => {
    expect(manifestSizeVerdict(LIMITS.MANIFEST_WARN_BYTES - 1)).toBe('ok');
    expect(manifestSizeVerdict(LIMITS.MANIFEST_WARN_BYTES)).toBe('warn');
    expect(manifestSizeVerdict(LIMITS.MANIFEST_MAX_BYTES)).toBe('warn');
    expect(manifestSizeVerdict(LIMITS.MANIFEST_MAX_BYTES + 1)).toBe('too_large');
  });

  it('checkManifest refuses above 128 KB with the size, before looking at the fields', () => {
    const big = { ...manifestOfSize(LIMITS.MANIFEST_MAX_BYTES + 1), version: 'not a version' };
    const err = (() => {
      try {
        checkManifest(big);
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ManifestTooLargeError);
    expect((err as ManifestTooLargeError).sizeBytes).toBe(manifestSizeBytes(big));
    expect(checkManifest(manifestOfSize(LIMITS.MANIFEST_WARN_BYTES)).warning).toBe(true);
    expect(checkManifest(sampleManifest()).warning).toBe(false);
  });
});
