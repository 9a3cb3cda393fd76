/**
 * The tool_not_supported_in_group rule of the reference server: a
 * tool_request artifact in a conversation with more than one human member is
 * denied at once. Membership comes from one function (`humanMembersOf`),
 * which group conversations replace; today's 1:1 conversations have one human.
 */
import { describe, expect, it } from 'vitest';
import { humanMembersOf, immediateDenial } from '../../../../src/server/artifacts/service.js';

describe('tool_not_supported_in_group', () => {
  it('denies a tool request among more than one human, nothing else', () => {
    expect(immediateDenial(5_000, 2)).toBe('tool_not_supported_in_group');
    expect(immediateDenial(5_000, 12)).toBe('tool_not_supported_in_group');
    expect(immediateDenial(5_000, 1)).toBeUndefined();
    expect(immediateDenial(undefined, 3)).toBeUndefined();
  });

  it('a 1:1 conversation has exactly its user as human member', () => {
    const c = {
      conversationId: 'c',
      userId: 'u',
      agentId: 'a',
      state: 'established',
      createdAtMs: 0,
      updatedAtMs: 0,
    } as const;
    expect(humanMembersOf(c)).toEqual(['u']);
    expect(immediateDenial(1_000, humanMembersOf(c).length)).toBeUndefined();
  });
});
