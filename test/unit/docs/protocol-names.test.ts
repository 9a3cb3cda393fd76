import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildServiceNames } from '../../../scripts/service-names-doc.js';
import { isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import { SERVICE_ROUTES, routePath } from '../../../packages/sdk/src/core/protocol/service-names.js';

describe('docs/protocol-names.md', () => {
  it('is generated from service-names.ts (run npm run docs:names)', () => {
    expect(readFileSync(new URL('../../../docs/protocol-names.md', import.meta.url), 'utf8')).toBe(
      buildServiceNames(),
    );
  });
});

describe('routePath', () => {
  it('fills and percent-encodes parameters', () => {
    expect(routePath(SERVICE_ROUTES.getConversation, { id: 'c/1 x' })).toBe('/conversations/c%2F1%20x');
  });
  it('refuses a missing parameter', () => {
    expect(() => routePath(SERVICE_ROUTES.getConversation, {})).toThrow(/Missing path parameter id/);
  });
  it('has one path per method across the whole table', () => {
    const seen = new Set<string>();
    for (const r of Object.values(SERVICE_ROUTES)) {
      const key = `${r.method} ${r.path.replace(/:[a-z_]+/g, ':')}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });
});

describe('routePath refuses what would steer the request elsewhere', () => {
  it.each(['', '.', '..'])('a ValidationError for %j', (id) => {
    let caught: unknown;
    try {
      routePath(SERVICE_ROUTES.getConversation, { id });
    } catch (err) {
      caught = err;
    }
    expect(isValidationError(caught)).toBe(true);
  });
});
