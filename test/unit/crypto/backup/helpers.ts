import type { Argon2Params } from '../../../../packages/sdk/src/core/protocol/key-backup.js';

/** Cheap Argon2id parameters for tests that do not test the defaults. */
export const CHEAP: Argon2Params = { m: 64, t: 1, p: 1 };
/** A floor low enough to admit {@link CHEAP}. */
export const TEST_FLOOR: Argon2Params = { m: 8, t: 1, p: 1 };
export const PASSWORD = 'correct horse battery staple';
export const cheap = { params: CHEAP, minParams: TEST_FLOOR } as const;
export const cheapRestore = { minParams: TEST_FLOOR, minimalFormParams: CHEAP } as const;
