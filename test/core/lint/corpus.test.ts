/**
 * Every real Triton config in the shared corpus (434 files) goes through every rule without an
 * exception, and every finding points inside its file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintTargets } from '../../../src/core/lint/runner.js';
import { scanTarget } from '../../../src/core/repository/scan.js';

const corpus = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'shared', 'corpus', 'triton-configs', 'cases');

describe('lint over the Triton config corpus', () => {
  it('lints all 434 configs without throwing, with every finding inside its file', () => {
    const ids = fs.readdirSync(corpus).sort();
    expect(ids).toHaveLength(434);
    let findings = 0;
    for (const id of ids) {
      const file = path.join(corpus, id, 'config.pbtxt');
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      const { diagnostics } = lintTargets([scanTarget(file, '/')]);
      for (const d of diagnostics) {
        findings++;
        expect(d.file).toBe(file);
        expect(d.line).toBeGreaterThanOrEqual(1);
        expect(d.line).toBeLessThanOrEqual(lines.length);
        expect(d.column).toBeGreaterThanOrEqual(1);
        expect(d.column).toBeLessThanOrEqual(lines[d.line - 1]!.length + 1);
        expect(d.endLine * 10_000 + d.endColumn).toBeGreaterThanOrEqual(d.line * 10_000 + d.column);
        expect(d.message.length).toBeGreaterThan(10);
      }
    }
    expect(findings).toBeGreaterThan(0);
  });
});
