/**
 * docs/environment.md is the one place GEBE_* environment variables are documented: every one the
 * product, the native code, the benchmarks or the tests read must be listed there, and nothing
 * listed there may be gone.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : /\.(ts|cc|h)$/.test(name) ? [full] : [];
  });
}

/** Variables read through getenv, process.env or commander's .env() (this file excepted). */
function readVariables(): Set<string> {
  const found = new Set<string>();
  for (const dir of ['src', 'native/src', 'scripts', 'test']) {
    for (const file of files(path.join(root, dir)).filter((f) => f !== import.meta.filename)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:getenv\("|process\.env\.|\.env\(')(GEBE_[A-Z0-9_]+)/g)) found.add(m[1]!);
    }
  }
  return found;
}

describe('docs/environment.md', () => {
  it('lists every GEBE_* variable that is read, and only those', () => {
    const doc = readFileSync(path.join(root, 'docs/environment.md'), 'utf8');
    const documented = new Set([...doc.matchAll(/`(GEBE_[A-Z0-9_]+)`/g)].map((m) => m[1]!));
    const read = readVariables();
    expect(read.size).toBeGreaterThan(5);
    expect([...read].filter((v) => !documented.has(v)).sort()).toEqual([]);
    expect([...documented].filter((v) => !read.has(v)).sort()).toEqual([]);
  });
});
