/**
 * Differential check against Google's C++ text-format parser (the one Triton uses), through
 * `protoc --encode`: mutated corpus configs must be accepted or rejected exactly as protoc does,
 * and accepted ones must decode to the same message. Runs where protoc is installed (Debian
 * package protobuf-compiler); elsewhere it is skipped and says so.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { parseModelConfig, toProtoJson } from '../../../src/core/config/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const casesDir = path.resolve(repoRoot, '..', 'shared', 'corpus', 'triton-configs', 'cases');
const protoDir = path.join(repoRoot, 'src', 'core', 'config');
const hasProtoc = spawnSync('protoc', ['--version']).status === 0;

function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SNIPPETS = ['}', '{', ',', ';', ':', '"', '#', '[', ']', '-', '0x', ' 1', ' -1', 'name: "x" ', 'dims: 3 ', 'max_batch_size: 2 ',
  '<', '>', "'", 'inf', 'true', '\n', 'foo: 1 ', 'parameters {} ', ' 1.5', ' 4294967296', ' t', ' 010', ' 09', '"a" "b"', '\\', ' =',
  'dynamic_batching { } ', 'sequence_batching { } ', 'kind: 7 ', ' []', ' [1,]', 'data_type: 5 ', '"\\x"', "'\\u00e9'", ' 1e5',
  ' -inf', ' nan', ' 1f', ' .5', 'input <> ', ' : <', '[ext]: 1 ', ' True', ' -0', ' 0b1', ' 1_000', ':-', '# //', ' 0X1F', ' -9223372036854775809',
  ' 18446744073709551616', 'zero_data: 1 ', 'random_data: f ', ' "\\q"', ' 1.', ' 00', ' 0x', '//'];

function mutate(text: string, next: () => number): string {
  const at = Math.floor(next() * (text.length + 1));
  const op = Math.floor(next() * 4);
  if (op === 0) return text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 3));
  if (op === 1 || op === 2) return text.slice(0, at) + SNIPPETS[Math.floor(next() * SNIPPETS.length)] + text.slice(at);
  const lines = text.split('\n');
  const i = Math.floor(next() * lines.length);
  lines.splice(i, 0, lines[i]!);
  return lines.join('\n');
}

/** Numbers compared as float32 so that a float field's shortest decimal matches its decoded value. */
function normalize(value: unknown): unknown {
  if (typeof value === 'number') return Math.fround(value);
  if (value === 'NaN') return NaN;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  return value;
}

describe.skipIf(!hasProtoc)('agreement with protoc (C++ TextFormat)', () => {
  it('accepts and rejects mutated corpus configs exactly as protoc does, with the same result', () => {
    const root = new protobuf.Root().loadSync(path.join(protoDir, 'model_config.proto'), { keepCase: true });
    root.resolveAll();
    const ModelConfig = root.lookupType('inference.ModelConfig');
    const next = random(2024);
    const ids = readdirSync(casesDir).sort();
    const mismatches: string[] = [];
    let accepted = 0;
    let rejected = 0;
    for (let i = 0; i < 150; i++) {
      const id = ids[Math.floor(next() * ids.length)]!;
      let text = readFileSync(path.join(casesDir, id, 'config.pbtxt'), 'utf8');
      const rounds = 1 + Math.floor(next() * 2);
      for (let r = 0; r < rounds; r++) text = mutate(text, next);
      const run = spawnSync('protoc', [`--proto_path=${protoDir}`, '--encode=inference.ModelConfig', 'model_config.proto'], { input: text });
      const protocOk = run.status === 0;
      const result = parseModelConfig(text, id);
      const ours = result.diagnostics.filter((d) => d.severity === 'error');
      if (protocOk !== (ours.length === 0)) {
        mismatches.push(`case ${id} mutation ${i}: protoc ${protocOk ? 'accepts' : `rejects (${run.stderr.toString().trim().split('\n')[0]})`}, gebe ${ours.length === 0 ? 'accepts' : `rejects (${ours[0]!.line}:${ours[0]!.column} ${ours[0]!.ruleId} ${ours[0]!.message})`}`);
        continue;
      }
      if (!protocOk) {
        rejected++;
        continue;
      }
      accepted++;
      const decoded = ModelConfig.toObject(ModelConfig.decode(run.stdout), { longs: String, enums: String, defaults: false });
      const expected = normalize(decoded);
      const actual = normalize(toProtoJson(result));
      if (JSON.stringify(actual) !== JSON.stringify(expected) && !isDeepEqual(actual, expected)) {
        mismatches.push(`case ${id} mutation ${i}: different result\n${JSON.stringify(actual).slice(0, 300)}\n${JSON.stringify(expected).slice(0, 300)}`);
      }
    }
    expect(mismatches).toEqual([]);
    // The mutations must exercise both outcomes for the comparison to mean anything.
    expect(accepted).toBeGreaterThan(15);
    expect(rejected).toBeGreaterThan(15);
  });
});

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
}
