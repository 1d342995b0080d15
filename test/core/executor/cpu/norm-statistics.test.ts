/**
 * Instance- and GroupNormalization's statistics (native/src/cpu/ops/norm.cc): each channel's or
 * group's mean and variance are sums in double (SumRow, SumSquaredDeviations in vector_math),
 * vectorised per ISA. Checked against a float64 reference of the same formula and against ONNX
 * Runtime, on rows that end in a partial vector, rows shorter than one vector, and values far from
 * zero (a variance of 1 around a mean of 1000, where a sum of squares in float loses it).
 * test/core/executor/cpu/isa-*.test.ts run it again on every other ISA.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-norm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface NormCase {
  name: string;
  op: 'InstanceNormalization' | 'GroupNormalization';
  input: number[];
  groups?: number; // GroupNormalization
  opset?: number;  // 21 (scale and bias per channel) unless given; 18: per group
  offset?: number; // added to every input value
}

let saved = 0;
let seed = 4100;

function paramCount(c: NormCase): number {
  return c.op === 'GroupNormalization' && (c.opset ?? 21) < 21 ? c.groups! : c.input[1];
}

function normModel(c: NormCase, scale: Float32Array, bias: Float32Array): string {
  const g = new OnnxGraphBuilder('norm', c.op === 'GroupNormalization' ? c.opset ?? 21 : 13);
  g.input('x', 'FLOAT', c.input);
  g.initializer('scale', 'FLOAT', [scale.length], scale);
  g.initializer('bias', 'FLOAT', [bias.length], bias);
  g.node(c.op, ['x', 'scale', 'bias'], ['y'], c.op === 'GroupNormalization' ? { num_groups: c.groups!, epsilon: 1e-5 } : { epsilon: 1e-5 }, 'norm');
  g.output('y', 'FLOAT', undefined);
  const file = path.join(dir, `n${saved++}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

/**
 * Per channel or group: the mean and variance in float64; with `exact` the whole normalisation in
 * float64, otherwise the engine's float32 steps after them (InstanceNormalization: scale / std;
 * GroupNormalization: scale × 1 / std; then x · s + (bias − mean · s)).
 */
function reference(c: NormCase, x: Float32Array, scale: Float32Array, bias: Float32Array, exact: boolean): Float32Array {
  const [n, channels] = c.input;
  const spatial = c.input.slice(2).reduce((a, b) => a * b, 1);
  const group = c.op === 'GroupNormalization';
  const groups = group ? c.groups! : channels;
  const perGroup = channels / groups, size = perGroup * spatial;
  const f = exact ? (v: number) => v : Math.fround;
  const y = new Float32Array(x.length);
  for (let r = 0; r < n * groups; r++) {
    const row = x.subarray(r * size, (r + 1) * size);
    let sum = 0;
    for (const v of row) sum += v;
    const mean = sum / size;
    let squares = 0;
    for (const v of row) squares += (v - mean) * (v - mean);
    const std = f(Math.sqrt(squares / size + Math.fround(1e-5)));
    for (let k = 0; k < perGroup; k++) {
      const ch = (r % groups) * perGroup + k;
      const p = group && (c.opset ?? 21) < 21 ? r % groups : ch;
      const s = group ? f(scale[p] * f(1 / std)) : f(scale[p] / std);
      const b = f(bias[p] - f(f(mean) * s));
      for (let i = 0; i < spatial; i++) y[r * size + k * spatial + i] = exact ? (row[k * spatial + i] - mean) * s + bias[p] : f(f(row[k * spatial + i] * s) + b);
    }
  }
  return y;
}

function maxAbsoluteError(a: Float32Array, b: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

const cases: NormCase[] = [
  { name: 'InstanceNormalization, 37x29 planes (a partial last vector)', op: 'InstanceNormalization', input: [2, 5, 37, 29] },
  { name: 'InstanceNormalization, planes of 7 (under one vector)', op: 'InstanceNormalization', input: [1, 3, 1, 7] },
  { name: 'InstanceNormalization around 1000', op: 'InstanceNormalization', input: [1, 4, 64, 64], offset: 1000 },
  { name: 'GroupNormalization per channel, 3 groups of 4 x 17x9', op: 'GroupNormalization', input: [2, 12, 17, 9], groups: 3 },
  { name: 'GroupNormalization per group (opset 18), 32 groups of 10 x 16x16', op: 'GroupNormalization', input: [1, 320, 16, 16], groups: 32, opset: 18 },
  { name: 'GroupNormalization around -500', op: 'GroupNormalization', input: [1, 8, 33, 33], groups: 2, offset: -500 },
];

describe('normalisation statistics in double', () => {
  for (const c of cases) {
    it.each([1, 2])(`${c.name} (threads %i)`, async (threads) => {
      const count = c.input.reduce((a, b) => a * b, 1);
      const x = new Float32Array(randomValues(count, seed++, 1)).map((v) => v + (c.offset ?? 0));
      const scale = new Float32Array(randomValues(paramCount(c), seed++, 1.5));
      const bias = new Float32Array(randomValues(paramCount(c), seed++, 1));
      const model = normModel(c, scale, bias);
      const input: CpuTensor = { name: 'x', datatype: 'FP32', dims: c.input, data: x };
      const session = CpuSession.load(model, { intraOpThreads: threads });
      try {
        const [out] = await session.run([input]);
        const got = out.data as Float32Array;
        if (c.offset) {
          // x · s and mean · s are near 1500 here, so the float step after the statistics keeps
          // about 1e-4; statistics summed in float (a variance from E[x²] − E[x]²) miss by 0.1.
          expect(maxAbsoluteError(got, reference(c, x, scale, bias, true))).toBeLessThan(1e-3);
        } else {
          // The sums' order differs from the reference's only in double rounding.
          expect(maxRelativeError(got, reference(c, x, scale, bias, false))).toBeLessThan(1e-6);
          expect(maxRelativeError(got, (await runOrt(model, [input])).y.data as Float32Array)).toBeLessThan(1e-4);
        }
      } finally {
        session.close();
      }
    });
  }
});

// LpNormalization p=2 along the last axis: the sum of squares through SumSquaredDeviations (around
// 0), then one float scale a row. A row of zeros gives zeros; a row of subnormals, whose norm's
// reciprocal is past the float range, is divided instead; infinities and NaN as the quotient has them.
describe('LpNormalization p=2 along the last axis', () => {
  function lpModel(dims: number[]): string {
    const g = new OnnxGraphBuilder('lp', 17).input('x', 'FLOAT', dims);
    g.node('LpNormalization', ['x'], ['y'], { axis: -1, p: 2 }, 'lp').output('y', 'FLOAT', undefined);
    const file = path.join(dir, `lp${saved++}.onnx`);
    writeFileSync(file, g.encode());
    return file;
  }
  function l2Reference(x: Float32Array, n: number): Float32Array {
    const y = new Float32Array(x.length);
    for (let r = 0; r < x.length / n; r++) {
      let squares = 0;
      for (let i = 0; i < n; i++) squares += x[r * n + i] * x[r * n + i];
      const norm = Math.sqrt(squares);
      for (let i = 0; i < n; i++) y[r * n + i] = norm === 0 ? 0 : x[r * n + i] / norm;
    }
    return y;
  }
  for (const [rows, n] of [[64, 512], [9, 37], [5, 7], [3, 1]] as const) {
    it.each([1, 2])(`${rows} rows of ${n} (threads %i)`, async (threads) => {
      const x = new Float32Array(randomValues(rows * n, seed++, 3));
      const input: CpuTensor = { name: 'x', datatype: 'FP32', dims: [rows, n], data: x };
      const model = lpModel([rows, n]);
      const session = CpuSession.load(model, { intraOpThreads: threads });
      try {
        const [out] = await session.run([input]);
        // A float scale times x: two roundings from the exact quotient.
        expect(maxRelativeError(out.data as Float32Array, l2Reference(x, n))).toBeLessThan(3e-7);
        expect(maxRelativeError(out.data as Float32Array, (await runOrt(model, [input])).y.data as Float32Array)).toBeLessThan(1e-5);
      } finally {
        session.close();
      }
    });
  }
  it('rows of zeros, subnormals, an infinity and a NaN', async () => {
    const n = 20;
    const x = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) x[n + i] = (i % 3) * 1e-44;
    x[2 * n + 5] = Infinity;
    x[3 * n + 7] = NaN;
    x[3 * n + 8] = 2;
    const session = CpuSession.load(lpModel([4, n]), { intraOpThreads: 1 });
    try {
      const [out] = await session.run([{ name: 'x', datatype: 'FP32', dims: [4, n], data: x }]);
      const y = out.data as Float32Array;
      expect(Array.from(y.subarray(0, n))).toEqual(new Array(n).fill(0));
      const subnormal = l2Reference(x.subarray(n, 2 * n), n);
      expect(maxRelativeError(y.subarray(n, 2 * n), subnormal)).toBeLessThan(3e-7);
      expect(y.subarray(n, 2 * n).every(Number.isFinite)).toBe(true);
      expect(Math.max(...y.subarray(n, 2 * n))).toBeGreaterThan(0.3);
      // x / ∞ is 0 and ∞ / ∞ NaN, as the quotient gives them; a NaN's row is all NaN.
      expect(Array.from(y.subarray(2 * n, 4 * n))).toEqual(Array.from(l2Reference(x.subarray(2 * n, 4 * n), n)));
      expect(Number.isNaN(y[2 * n + 5]) && y[2 * n + 4] === 0 && y.subarray(3 * n, 4 * n).every(Number.isNaN)).toBe(true);
    } finally {
      session.close();
    }
  });
});
