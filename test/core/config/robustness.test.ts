/**
 * Hostile input never throws and never hangs: random bytes, every truncation of real configs,
 * deep nesting, very long lines, and a 50 MB file. Each run must end with diagnostics whose
 * positions lie inside the text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseModelConfig, toProtoJson } from '../../../src/core/config/index.js';
import type { ParseResult } from '../../../src/core/config/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const casesDir = path.resolve(repoRoot, '..', 'shared', 'corpus', 'triton-configs', 'cases');

/** A small deterministic PRNG (mulberry32) so that failures reproduce. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function check(text: string): ParseResult {
  const result = parseModelConfig(text, 'fuzz.pbtxt');
  const lines = text.split('\n').length;
  for (const d of result.diagnostics) {
    expect(d.ruleId).toMatch(/^SYNTAX_/);
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.line).toBeLessThanOrEqual(lines);
    expect(d.endLine).toBeGreaterThanOrEqual(d.line);
    for (const edit of d.fix?.edits ?? []) {
      expect(edit.start).toBeGreaterThanOrEqual(0);
      expect(edit.end).toBeLessThanOrEqual(text.length);
    }
  }
  toProtoJson(result);
  return result;
}

describe('robustness', () => {
  it('survives random text built from the format\'s own characters and arbitrary code points', () => {
    const next = random(42);
    const alphabet = ['{', '}', '<', '>', '[', ']', ':', ',', ';', '"', "'", '\\', '#', '/', '-', '\n', ' ', '\t',
      'input', 'name', 'dims', 'parameters', 'key', 'value', 'TYPE_FP32', '0x', '1', '9', '.', 'e', 'inf',
      '\u201C', '\u201D', '\u00A0', '\uFEFF', '\u0000', '\uD800'];
    for (let i = 0; i < 300; i++) {
      let text = '';
      const length = Math.floor(next() * 200);
      for (let j = 0; j < length; j++) {
        text += next() < 0.85 ? alphabet[Math.floor(next() * alphabet.length)] : String.fromCharCode(Math.floor(next() * 0x10000));
      }
      check(text);
    }
  });

  it('survives random bytes decoded as UTF-8', () => {
    const next = random(7);
    for (let i = 0; i < 200; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(next() * 400) }, () => Math.floor(next() * 256));
      check(new TextDecoder().decode(bytes));
    }
  });

  it('survives every truncation of real configs', () => {
    const ids = readdirSync(casesDir).sort().filter((_, i) => i % 40 === 0);
    for (const id of ids) {
      const text = readFileSync(path.join(casesDir, id, 'config.pbtxt'), 'utf8');
      for (let cut = 0; cut <= text.length; cut += 3) check(text.slice(0, cut));
    }
  });

  it('bounds nesting depth instead of overflowing the stack', () => {
    const result = check('a { '.repeat(100_000) + '}'.repeat(100_000));
    expect(result.diagnostics.some((d) => d.ruleId === 'SYNTAX_NESTING_TOO_DEEP')).toBe(true);
    check('input: ' + '['.repeat(50_000));
    check('input ' + '[ { input '.repeat(50_000));
    check('optimization ' + '{'.repeat(100_000) + '}'.repeat(100_000));
  });

  it('caps the number of diagnostics for files that are not configs at all', () => {
    const result = check('name: x // y\n'.repeat(5000));
    expect(result.diagnostics).toHaveLength(1001);
    expect(result.diagnostics[1000]!.ruleId).toBe('SYNTAX_TOO_MANY_ERRORS');
  });

  it('parses a long single-line string and a long comment', () => {
    const long = 'x'.repeat(2_000_000);
    expect(check(`name: "${long}"`).config.name).toHaveLength(2_000_000);
    expect(check(`# ${long}\nname: "a"`).config.name).toBe('a');
  });

  it('reports a 50 MB file instead of building a tree for it', () => {
    const unit = 'input { name: "x" data_type: TYPE_FP32 dims: [ 1, 2, 3 ] }\n';
    const text = unit.repeat(Math.ceil(50e6 / unit.length));
    const result = check(text);
    expect(result.diagnostics.map((d) => d.ruleId)).toEqual(['SYNTAX_FILE_TOO_LARGE']);
    expect(result.diagnostics[0]!.message).toMatch(/50\.\d MB/);
    expect(result.config).toEqual({});
  });
});
