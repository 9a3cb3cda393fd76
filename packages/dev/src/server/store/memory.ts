/**
 * The default, in-memory {@link Store}: state lives as long as the server.
 *
 * @module
 */
import {
  createMemoryAgentStore,
  createMemoryConversationStore,
  createMemoryMessageStore,
} from './memory-agents.js';
import { createMemoryDeviceStore } from './memory-devices.js';
import { createMemoryGroupStore } from './memory-groups.js';
import {
  createMemoryCodeStore,
  createMemoryKeyBackupStore,
  createMemoryPasskeyStore,
} from './memory-misc.js';
import { createMemoryUserStore } from './memory-users.js';
import type { Store } from './types.js';

/** Creates an empty in-memory store. */
export function createMemoryStore(): Store {
  return {
    users: createMemoryUserStore(),
    devices: createMemoryDeviceStore(),
    codes: createMemoryCodeStore(),
    keyBackups: createMemoryKeyBackupStore(),
    passkeys: createMemoryPasskeyStore(),
    agents: createMemoryAgentStore(),
    conversations: createMemoryConversationStore(),
    messages: createMemoryMessageStore(),
    groups: createMemoryGroupStore(),
  };
}
