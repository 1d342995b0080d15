/**
 * Builds and runs the native scheduler tests (native/test/scheduler: DecideBatch table,
 * queue policies, the model scheduler with a test engine, and the 1,000,000-request stress
 * test). Sanitizer builds of the same tests: `npm run test:native:sched`.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './fake-acl.js';

describe('native scheduler tests', () => {
  it('pass (g++ build, run in-process stress of 1,000,000 requests)', () => {
    let output: string;
    try {
      output = execFileSync('make', ['-s', '-C', path.join(repoRoot, 'native/test/scheduler'), 'run'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`native scheduler tests failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    }
    expect(output).toMatch(/\n\d+ cases, 0 failed checks\n/);
    expect(output).toContain('ok   DecideBatchTable');
    expect(output).toContain('ok   StressEveryRequestAnsweredExactlyOnce');
    expect(output).toContain('1000000 requests');
  }, 300_000);
});
