/**
 * The random operators (RandomNormal, RandomUniform, their *Like forms, Bernoulli, Multinomial):
 * their values are the engine's own draws, so these tests check what can be checked: shapes and
 * types, the distribution over many draws (bounds set at about six standard errors, so a correct
 * kernel fails about once in 10^8 runs), new values on every run (none is folded into a constant,
 * at load or in a shape's plan), the same values from the same seed, and the extremes that have
 * only one outcome.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, type AttributeValue } from '../../../helpers/onnx-builder.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-random-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function load(model: Uint8Array, threads = 1): CpuSession {
  const file = path.join(dir, `m${counter++}.onnx`);
  writeFileSync(file, model);
  return CpuSession.load(file, { intraOpThreads: threads });
}

/** A model of one random node with no inputs (shape from its attribute), output FLOAT. */
function generator(op: string, attributes: Record<string, AttributeValue>): Uint8Array {
  return new OnnxGraphBuilder(op, 17).node(op, [], ['y'], attributes).output('y', 'FLOAT').encode();
}

function stats(values: Float32Array): { mean: number; std: number; min: number; max: number } {
  let sum = 0, sq = 0, min = Infinity, max = -Infinity;
  for (const v of values) {
    sum += v;
    sq += v * v;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  const mean = sum / values.length;
  return { mean, std: Math.sqrt(sq / values.length - mean * mean), min, max };
}

describe('random operators', () => {
  it('RandomNormal: its mean and scale over 200,000 draws, new values every run, the same from the same seed', async () => {
    const session = load(generator('RandomNormal', { shape: [200, 1000], mean: { float: 2 }, scale: { float: 3 } }));
    try {
      const [a] = await session.run([]);
      const [b] = await session.run([]);
      expect(a.dims).toEqual([200, 1000]);
      const s = stats(a.data as Float32Array);
      // Standard errors: 3 / sqrt(2e5) = 0.0067 for the mean, about 0.0047 for the deviation.
      expect(Math.abs(s.mean - 2)).toBeLessThan(0.04);
      expect(Math.abs(s.std - 3)).toBeLessThan(0.03);
      expect(Array.from((b.data as Float32Array).subarray(0, 16))).not.toEqual(Array.from((a.data as Float32Array).subarray(0, 16)));
    } finally {
      session.close();
    }
    const seeded = () => load(generator('RandomNormal', { shape: [64], seed: { float: 7 } }));
    const [s1, s2] = [seeded(), seeded()];
    try {
      const [x] = await s1.run([]);
      const [y] = await s2.run([]);
      expect(Array.from(x.data as Float32Array)).toEqual(Array.from(y.data as Float32Array));
      const [next] = await s1.run([]);
      expect(Array.from(next.data as Float32Array)).not.toEqual(Array.from(x.data as Float32Array));
    } finally {
      s1.close();
      s2.close();
    }
  });

  it('a random tensor inside the graph (noise added to an input) is drawn again on every run', async () => {
    const model = new OnnxGraphBuilder('noise', 17).input('x', 'FLOAT', [64])
      .node('RandomNormal', [], ['noise'], { shape: [64] }).node('Add', ['x', 'noise'], ['y']).output('y', 'FLOAT').encode();
    const session = load(model);
    try {
      const x: CpuTensor = { name: 'x', datatype: 'FP32', dims: [64], data: new Float32Array(64) };
      const [a] = await session.run([x]);
      const [b] = await session.run([x]);
      expect(Array.from(b.data as Float32Array)).not.toEqual(Array.from(a.data as Float32Array));
    } finally {
      session.close();
    }
  });

  it('RandomUniform and the *Like forms: the bounds, the mean, the input\'s shape, across 2 threads', async () => {
    const session = load(generator('RandomUniform', { shape: [100, 1000], low: { float: -1 }, high: { float: 5 } }), 2);
    try {
      const s = stats((await session.run([]))[0].data as Float32Array);
      expect(s.min).toBeGreaterThanOrEqual(-1);
      expect(s.max).toBeLessThan(5);
      expect(Math.abs(s.mean - 2)).toBeLessThan(0.04); // standard error 6 / sqrt(12e5) = 0.0055
    } finally {
      session.close();
    }
    const like = new OnnxGraphBuilder('like', 17).input('x', 'FLOAT', [3, 50, 40])
      .node('RandomNormalLike', ['x'], ['n']).node('RandomUniformLike', ['x'], ['u'], { low: { float: 10 }, high: { float: 11 } })
      .output('n', 'FLOAT').output('u', 'FLOAT').encode();
    const s = load(like, 2);
    try {
      const x: CpuTensor = { name: 'x', datatype: 'FP32', dims: [3, 50, 40], data: new Float32Array(6000) };
      const [n, u] = await s.run([x]);
      expect(n.dims).toEqual([3, 50, 40]);
      expect(Math.abs(stats(n.data as Float32Array).mean)).toBeLessThan(0.08); // standard error 0.013
      const su = stats(u.data as Float32Array);
      expect(su.min).toBeGreaterThanOrEqual(10);
      expect(su.max).toBeLessThan(11);
    } finally {
      s.close();
    }
  });

  it('Bernoulli: probabilities 0 and 1 give 0 and 1; 0.3 gives ones about 30% of the time; BOOL and INT64 outputs', async () => {
    const model = new OnnxGraphBuilder('bernoulli', 15).input('p', 'FLOAT', [3, 20000])
      .node('Bernoulli', ['p'], ['f']).node('Bernoulli', ['p'], ['b'], { dtype: 9 }).node('Bernoulli', ['p'], ['i'], { dtype: 7, seed: { float: 1 } })
      .output('f', 'FLOAT').output('b', 'BOOL').output('i', 'INT64').encode();
    const p = new Float32Array(60000);
    p.fill(0, 0, 20000).fill(1, 20000, 40000).fill(0.3, 40000);
    const session = load(model);
    try {
      const [f, b, i] = await session.run([{ name: 'p', datatype: 'FP32', dims: [3, 20000], data: p }]);
      const floats = f.data as Float32Array;
      expect(floats.subarray(0, 20000).every((v) => v === 0)).toBe(true);
      expect(floats.subarray(20000, 40000).every((v) => v === 1)).toBe(true);
      const ones = floats.subarray(40000).reduce((a, v) => a + v, 0) / 20000;
      expect(Math.abs(ones - 0.3)).toBeLessThan(0.02); // standard error 0.0032
      expect(b.datatype).toBe('BOOL');
      expect(Array.from((b.data as Uint8Array).subarray(20000, 20010))).toEqual(new Array(10).fill(1));
      expect(i.datatype).toBe('INT64');
      expect((i.data as BigInt64Array).subarray(0, 20000).every((v) => v === 0n)).toBe(true);
    } finally {
      session.close();
    }
  });

  it('Multinomial: a class far ahead is always drawn; equal classes about equally; INT64 indices', async () => {
    const model = new OnnxGraphBuilder('multinomial', 7).input('logits', 'FLOAT', [2, 4])
      .node('Multinomial', ['logits'], ['y'], { sample_size: 8000, dtype: 7 }).output('y', 'INT64').encode();
    const session = load(model);
    try {
      const logits = Float32Array.from([0, 0, 40, 0, 1, 1, 1, 1]);
      const [y] = await session.run([{ name: 'logits', datatype: 'FP32', dims: [2, 4], data: logits }]);
      expect(y.dims).toEqual([2, 8000]);
      const picks = Array.from(y.data as BigInt64Array, Number);
      expect(picks.slice(0, 8000).every((c) => c === 2)).toBe(true);
      const counts = [0, 0, 0, 0];
      for (const c of picks.slice(8000)) counts[c]++;
      for (const c of counts) expect(Math.abs(c / 8000 - 0.25)).toBeLessThan(0.03); // standard error 0.0048
    } finally {
      session.close();
    }
  });

  it('takes any seed, 1e30 and NaN included (its bits seed the generator)', async () => {
    for (const seed of [1e30, Number.NaN, -3.5]) {
      const session = load(generator('RandomUniform', { shape: [8], seed: { float: seed } }));
      try {
        const [y] = await session.run([]);
        expect((y.data as Float32Array).every((v) => v >= 0 && v < 1)).toBe(true);
      } finally {
        session.close();
      }
    }
  });

  it('refuses a non-float dtype for RandomNormal and a Multinomial dtype other than INT32/INT64, naming them', () => {
    expect(() => load(generator('RandomNormal', { shape: [2], dtype: 7 }))).toThrow(/RandomNormal: dtype must be a float type/);
    const model = new OnnxGraphBuilder('multinomial_bad', 7).input('x', 'FLOAT', [1, 3])
      .node('Multinomial', ['x'], ['y'], { dtype: 1 }).output('y', 'FLOAT').encode();
    expect(() => load(model)).toThrow(/Multinomial: dtype must be INT32 or INT64/);
  });
});
