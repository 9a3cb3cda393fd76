/**
 * The testing kit works outside vitest: runs echo.node-test.ts with
 * node's own test runner and checks its TAP summary.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const file = fileURLToPath(new URL('./echo.node-test.ts', import.meta.url));

describe('the testing kit under node:test', () => {
  it('passes a node:test suite built with createTestWorld', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.stdout).toMatch(/^# pass 1$/m);
    expect(run.stdout).toMatch(/^# fail 0$/m);
    expect(run.status).toBe(0);
  });
});
