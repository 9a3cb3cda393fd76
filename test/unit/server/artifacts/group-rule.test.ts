/**
 * The tool_not_supported_in_group rule of the reference server: a
 * tool_request artifact in a conversation with more than one human member is
 * denied at once. Membership comes from the groups module (`humanMembers`);
 * the group case is proven end to end in test/integration/groups/group-features.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { immediateDenial } from '../../../../packages/dev/src/server/artifacts/service.js';

describe('tool_not_supported_in_group', () => {
  it('denies a tool request among more than one human, nothing else', () => {
    expect(immediateDenial(5_000, 2)).toBe('tool_not_supported_in_group');
    expect(immediateDenial(5_000, 12)).toBe('tool_not_supported_in_group');
    expect(immediateDenial(5_000, 1)).toBeUndefined();
    expect(immediateDenial(undefined, 3)).toBeUndefined();
  });
});
