/**
 * Builds and runs the native unit tests of Normalize, the one check of an infer request, and of
 * its wording (native/test/normalize). Sanitizer build: `make -C native/test/normalize run SAN=address,undefined`.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './fake-acl.js';

describe('native Normalize tests', () => {
  it('pass (g++ build)', () => {
    let output: string;
    try {
      output = execFileSync('make', ['-s', '-C', path.join(repoRoot, 'native/test/normalize'), 'run'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`native Normalize tests failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    }
    expect(output).toMatch(/\n\d+ cases, 0 failed checks\n/);
    expect(output).toContain('ok   WordsAShapeWithoutTheBatchDimensionAsTriton');
    expect(output).toContain('ok   ChecksTheBytesLayout');
  }, 300_000);
});
