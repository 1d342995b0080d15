/**
 * Conformance: every configuration in the shared Triton corpus parses without diagnostics, and
 * its protobuf JSON equals the reference that Google's own text-format parser produced.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseModelConfig, toProtoJson } from '../../../src/core/config/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const casesDir = path.resolve(repoRoot, '..', 'shared', 'corpus', 'triton-configs', 'cases');
const cases = readdirSync(casesDir).sort();

describe('triton-configs corpus', () => {
  it('holds all 434 cases', () => {
    expect(cases).toHaveLength(434);
  });

  it.each(cases)('case %s matches expected.json', (id) => {
    const text = readFileSync(path.join(casesDir, id, 'config.pbtxt'), 'utf8');
    const expected = JSON.parse(readFileSync(path.join(casesDir, id, 'expected.json'), 'utf8'));
    const result = parseModelConfig(text, `${id}/config.pbtxt`);
    expect(expected.ok).toBe(true);
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const actual = toProtoJson(result);
    // Map entries have no defined order in protobuf (Python prints them in hash order), so the
    // comparison is deep; the top-level fields must also come in the same (field-number) order.
    expect(actual).toStrictEqual(expected.message);
    expect(Object.keys(actual)).toEqual(Object.keys(expected.message));
  });
});
