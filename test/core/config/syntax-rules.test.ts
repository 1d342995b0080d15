/**
 * The SYNTAX_* catalogue matches what the parser can emit, and every id is exercised by a test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SYNTAX_RULES } from '../../../src/core/config/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function idsIn(dir: string, skip: string[] = []): Set<string> {
  const ids = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !skip.includes(f))) {
    for (const m of readFileSync(path.join(dir, file), 'utf8').matchAll(/'(SYNTAX_[A-Z0-9_]+)'/g)) ids.add(m[1]!);
  }
  return ids;
}

describe('SYNTAX_RULES', () => {
  const catalogue = SYNTAX_RULES.map((r) => r.id);

  it('lists each id once, with a "Checks that" or "Reports that" summary', () => {
    expect(new Set(catalogue).size).toBe(catalogue.length);
    for (const rule of SYNTAX_RULES) expect(rule.summary).toMatch(/^(Checks|Reports) that .+\.$/);
  });

  it('covers exactly the ids the parser reports', () => {
    const emitted = idsIn(path.join(repoRoot, 'src', 'core', 'config'), ['syntax-rules.ts']);
    expect([...emitted].sort()).toEqual([...catalogue].sort());
  });

  it('has a test for every id', () => {
    const tested = idsIn(path.join(repoRoot, 'test', 'core', 'config'), ['syntax-rules.test.ts']);
    expect(catalogue.filter((id) => !tested.has(id))).toEqual([]);
  });
});
