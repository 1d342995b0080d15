/**
 * The reductions only ONNX's conformance data checked before — ReduceL1, ReduceL2, ReduceProd,
 * ReduceLogSumExp, ReduceSumSquare, ArgMin and MeanVarianceNormalization — against ONNX Runtime at
 * 1 and 2 threads: inner, middle, non-adjacent, negative and all axes, keepdims 0 and 1, axes as
 * an attribute (opset 13) and as an input (opset 18), FP32 and INT32/INT64. Shapes of 420 and
 * 73,914 elements: the larger gives each reduction hundreds of outputs, more than the engine's
 * per-thread grain, so two threads split them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { bitDifferences } from '../../../helpers/fusion-check.js';
import { OnnxGraphBuilder, randomValues, seededRandom, type AttributeValue } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-ops-reduce-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-reduce-extreme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shapes = [[3, 4, 5, 7], [2, 3, 97, 127]].map((dims) => ({ dims }));
const count = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

// Each reduction over these axes, named by them; keepdims alternates so both forms are covered.
const axesCases: Array<{ tag: string; axes?: number[]; keepdims: number }> = [
  { tag: 'inner', axes: [-1], keepdims: 1 },
  { tag: 'middle', axes: [1], keepdims: 0 },
  { tag: 'apart', axes: [0, 2], keepdims: 1 },
  { tag: 'negative', axes: [-3, -1], keepdims: 0 },
  { tag: 'all', keepdims: 0 },
];

describe.each([1, 2])('cpu engine vs ONNX Runtime, reductions (threads=%i)', (threads) => {
  it.each(shapes)('ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSumExp, ReduceProd over axes given as an input (opset 18) on $dims', async ({ dims }) => {
    const b = new OnnxGraphBuilder('reduce18', 18).input('x', 'FLOAT', dims).input('p', 'FLOAT', dims);
    for (const { tag, axes, keepdims } of axesCases) {
      if (axes) b.initializer(`axes_${tag}`, 'INT64', [axes.length], axes);
      for (const op of ['ReduceL1', 'ReduceL2', 'ReduceSumSquare', 'ReduceLogSumExp', 'ReduceProd']) {
        b.node(op, [op === 'ReduceProd' ? 'p' : 'x', axes ? `axes_${tag}` : ''], [`${op}_${tag}`], { keepdims }).output(`${op}_${tag}`, 'FLOAT');
      }
    }
    // ReduceProd's input is exp(0.02·r): the product of all 73,914 stays within e^±15, where
    // values of ±1 would overflow and values near 1 drift to 0.
    const p = Float32Array.from(randomValues(count(dims), 52, 0.02), Math.exp);
    // The engine accumulates in double, ONNX Runtime in FP32: sums of up to 73,914 positive terms
    // and the long products differ by FP32 rounding, measured up to 2e-6; LogSumExp over the 3-4
    // elements of the middle axis up to 2e-5, where its result nears 0 and ONNX Runtime's FP32
    // max + log(Σ exp(x - max)) cancels (relative to maxRelativeError's floor).
    await agree(b.encode(), [{ name: 'x', datatype: 'FP32', dims, data: randomValues(count(dims), 51, 3) }, { name: 'p', datatype: 'FP32', dims, data: p }], threads, 1e-4);
  });

  it.each(shapes)('the same reductions with axes as an attribute (opset 13), and INT32/INT64 L1, L2, SumSquare and Prod (exact) on $dims', async ({ dims }) => {
    const b = new OnnxGraphBuilder('reduce13', 13).input('x', 'FLOAT', dims);
    for (const { tag, axes, keepdims } of axesCases.slice(0, 3)) {
      const attrs: Record<string, AttributeValue> = axes ? { axes, keepdims } : { keepdims };
      for (const op of ['ReduceL1', 'ReduceL2', 'ReduceSumSquare', 'ReduceLogSumExp']) b.node(op, ['x'], [`${op}_${tag}`], attrs).output(`${op}_${tag}`, 'FLOAT');
    }
    const ints = new OnnxGraphBuilder('reduce_ints', 13).input('i32', 'INT32', dims).input('i64', 'INT64', dims);
    for (const { tag, axes, keepdims } of axesCases.slice(0, 2)) {
      const attrs: Record<string, AttributeValue> = axes ? { axes, keepdims } : { keepdims };
      for (const [type, name] of [['INT32', 'i32'], ['INT64', 'i64']] as const) {
        for (const op of ['ReduceL1', 'ReduceL2', 'ReduceSumSquare']) ints.node(op, [name], [`${op}_${name}_${tag}`], attrs).output(`${op}_${name}_${tag}`, type);
      }
    }
    // Products along the last axis only (127 factors of -2..2 would overflow INT64 otherwise): its
    // values are 1 or -1 except one ±2 in every 16, so at most 8 doublings per product.
    ints.node('ReduceProd', ['i64_prod'], ['ReduceProd_i64'], { axes: [-1], keepdims: 0 }).output('ReduceProd_i64', 'INT64')
      .node('Cast', ['i64_prod'], ['i32_prod'], { to: 6 }).node('ReduceProd', ['i32_prod'], ['ReduceProd_i32'], { axes: [-1], keepdims: 1 }).output('ReduceProd_i32', 'INT32');
    ints.input('i64_prod', 'INT64', dims);
    const rand = seededRandom(53);
    const small = Array.from({ length: count(dims) }, () => Math.floor(rand() * 2001) - 1000);
    const signs = BigInt64Array.from({ length: count(dims) }, (_, i) => (i % 16 === 5 ? (rand() < 0.5 ? -2n : 2n) : rand() < 0.5 ? -1n : 1n));
    const x: CpuTensor = { name: 'x', datatype: 'FP32', dims, data: randomValues(count(dims), 54, 3) };
    const i32: CpuTensor = { name: 'i32', datatype: 'INT32', dims, data: Int32Array.from(small) };
    const i64: CpuTensor = { name: 'i64', datatype: 'INT64', dims, data: BigInt64Array.from(small, BigInt) };
    await agree(b.encode(), [x], threads, 1e-4);
    // Integer sums and products are exact in both; integer ReduceL2 is the square root of an exact sum, truncated.
    await agree(ints.encode(), [i32, i64, { name: 'i64_prod', datatype: 'INT64', dims, data: signs }], threads, 0);
  });

  it.each(shapes)('ReduceMean and ReduceSum (FP32) over trailing axes (one contiguous run an output, reduce.cc\'s vector path) and the others on $dims', async ({ dims }) => {
    const b = new OnnxGraphBuilder('reduce_mean', 18).input('x', 'FLOAT', dims);
    const cases = [...axesCases, { tag: 'spatial', axes: [2, 3], keepdims: 1 }, { tag: 'last_two', axes: [-2, -1], keepdims: 0 }];
    for (const { tag, axes, keepdims } of cases) {
      if (axes) b.initializer(`axes_${tag}`, 'INT64', [axes.length], axes);
      for (const op of ['ReduceMean', 'ReduceSum']) b.node(op, ['x', axes ? `axes_${tag}` : ''], [`${op}_${tag}`], { keepdims }).output(`${op}_${tag}`, 'FLOAT');
    }
    // A kept dim of one element after the reduced one still leaves each output one contiguous run.
    b.node('Unsqueeze', ['x', 'axes_end'], ['x1']).initializer('axes_end', 'INT64', [1], [4]);
    b.node('ReduceMean', ['x1', 'axes_spatial'], ['ReduceMean_before_a_one'], { keepdims: 1 }).output('ReduceMean_before_a_one', 'FLOAT');
    await agree(b.encode(), [{ name: 'x', datatype: 'FP32', dims, data: randomValues(count(dims), 55, 3) }], threads, 1e-4);
  });

  it.each(shapes)('ReduceMax and ReduceMin (FP32 and INT32, exact), trailing axes (read in place) and the others, on $dims', async ({ dims }) => {
    const b = new OnnxGraphBuilder('reduce_max_min', 18).input('x', 'FLOAT', dims).input('i', 'INT32', dims);
    for (const { tag, axes, keepdims } of [...axesCases, { tag: 'last_two', axes: [-2, -1], keepdims: 1 }]) {
      if (axes) b.initializer(`axes_${tag}`, 'INT64', [axes.length], axes);
      for (const op of ['ReduceMax', 'ReduceMin']) {
        b.node(op, ['x', axes ? `axes_${tag}` : ''], [`${op}_${tag}`], { keepdims }).output(`${op}_${tag}`, 'FLOAT');
        b.node(op, ['i', axes ? `axes_${tag}` : ''], [`${op}_i_${tag}`], { keepdims }).output(`${op}_i_${tag}`, 'INT32');
      }
    }
    const ints = Int32Array.from(randomValues(count(dims), 57, 1000), Math.round);
    await agree(b.encode(), [{ name: 'x', datatype: 'FP32', dims, data: randomValues(count(dims), 56, 3) }, { name: 'i', datatype: 'INT32', dims, data: ints }], threads, 0);
  });

  it.each(shapes)('ArgMin with ties: each axis, keepdims 0/1, select_last_index 0/1, FP32, INT32 and UINT8 on $dims', async ({ dims }) => {
    const b = new OnnxGraphBuilder('argmin', 13).input('x', 'FLOAT', dims).input('i', 'INT32', dims).input('u', 'UINT8', dims);
    const cases = [{ axis: 0, keepdims: 1, last: 0 }, { axis: 1, keepdims: 0, last: 1 }, { axis: -2, keepdims: 1, last: 1 }, { axis: -1, keepdims: 0, last: 0 }];
    cases.forEach(({ axis, keepdims, last }, k) => {
      for (const name of ['x', 'i', 'u']) {
        b.node('ArgMin', [name], [`argmin_${name}_${k}`], { axis, keepdims, select_last_index: last }).output(`argmin_${name}_${k}`, 'INT64');
      }
    });
    // Seven distinct values: every reduced run has ties for its minimum, so the first/last choice matters.
    const rand = seededRandom(55);
    const levels = Array.from({ length: count(dims) }, () => Math.floor(rand() * 7));
    await agree(b.encode(), [
      { name: 'x', datatype: 'FP32', dims, data: Float32Array.from(levels, (v) => (v - 3) * 0.75) },
      { name: 'i', datatype: 'INT32', dims, data: Int32Array.from(levels, (v) => (v - 3) * 1000) },
      { name: 'u', datatype: 'UINT8', dims, data: Uint8Array.from(levels, (v) => v * 40) },
    ], threads, 0);
  });

  it.each(shapes)('MeanVarianceNormalization: default axes (0, 2, 3), per instance and channel (2, 3), across channels and rows (1, -2), last axis (-1) on $dims', async ({ dims }) => {
    const model = new OnnxGraphBuilder('mvn', 13)
      .input('x', 'FLOAT', dims)
      .node('MeanVarianceNormalization', ['x'], ['mvn_default'])
      .node('MeanVarianceNormalization', ['x'], ['mvn_spatial'], { axes: [2, 3] })
      .node('MeanVarianceNormalization', ['x'], ['mvn_channels'], { axes: [1, -2] })
      .node('MeanVarianceNormalization', ['x'], ['mvn_last'], { axes: [-1] })
      .output('mvn_default', 'FLOAT').output('mvn_spatial', 'FLOAT').output('mvn_channels', 'FLOAT').output('mvn_last', 'FLOAT')
      .encode();
    // Centred data: ONNX Runtime takes the variance as E[x²] - E[x]² in FP32, which cancels when
    // the mean is large against the spread (at mean 2 and spread ±1 its results are 3.4e-4 from
    // exact ones computed in double, where the engine, summing in double, is within 6e-8). At mean
    // 0 the two agree within 1.4e-5, so the comparison measures the operator rather than that
    // cancellation. For the same reason no group is as small as the 3 channels alone (axes [1]):
    // three values can have a variance tiny against their mean.
    await agree(model, [{ name: 'x', datatype: 'FP32', dims, data: randomValues(count(dims), 56, 1.5) }], threads, 5e-5);
  });
});

// ReduceMax and ReduceMin over trailing axes take independent chains (native/src/cpu/ops/reduce.cc,
// vector_math's MaxSkippingNaN/MinSkippingNaN: eight portable, 32 lanes AVX2, 64 AVX-512). Their
// values must be the one chain's from the first element, bit for bit: a NaN first is the answer, a
// NaN later is skipped (one at the end, or every third), of equal zeros the first is kept, and rows
// of -inf or +inf stay so. Rows of 1, 7, 8, 9, 33, 100 and 1000: the vector blocks and each tail.
describe('ReduceMax and ReduceMin over trailing axes, bit for bit', () => {
  const chain = (row: Float32Array, max: boolean) => {
    let m = row[0];
    for (let i = 1; i < row.length; i++) m = (max ? row[i] > m : row[i] < m) ? row[i] : m;
    return m;
  };
  for (const width of [1, 7, 8, 9, 33, 100, 1000]) {
    it.each(['ReduceMax', 'ReduceMin'] as const)(`%s over rows of ${width}`, async (op) => {
      const rows = 8;
      const data = new Float32Array(randomValues(rows * width, 60 + width, 3));
      const set = (r: number, i: number, v: number) => { if (i < width) data[r * width + i] = v; };
      set(1, 0, NaN);                                     // first: the answer
      set(2, width - 1, NaN);                             // later: skipped
      for (let i = 0; i < width; i++) set(3, i, -Math.abs(data[3 * width + i]) - 1);
      set(3, width >> 1, 0); set(3, width - 1, -0);       // the maximum is +0, seen first
      for (let i = 0; i < width; i++) set(4, i, Math.abs(data[4 * width + i]) + 1);
      set(4, 0, -0); set(4, width - 1, 0);                // the minimum is -0, seen first
      for (let i = 0; i < width; i++) set(5, i, op === 'ReduceMax' ? -Infinity : Infinity);
      for (let i = 1; i < width; i += 3) set(6, i, NaN);  // skipped wherever they fall
      const model = new OnnxGraphBuilder('extreme', 13).input('x', 'FLOAT', [rows, width])
        .node(op, ['x'], ['y'], { axes: [1], keepdims: 0 }, 'reduce').output('y', 'FLOAT', undefined).encode();
      const file = path.join(dir, `extreme-${op}-${width}.onnx`);
      writeFileSync(file, model);
      const session = CpuSession.load(file, { intraOpThreads: 1 });
      try {
        const [out] = await session.run([{ name: 'x', datatype: 'FP32', dims: [rows, width], data }]);
        const want = Float32Array.from({ length: rows }, (_, r) => chain(data.subarray(r * width, (r + 1) * width), op === 'ReduceMax'));
        expect(bitDifferences(out, { ...out, data: want })).toEqual({ count: 0, first: -1 });
      } finally {
        session.close();
      }
    });
  }
});

// ReduceSum and ReduceMean whose reduced dims sit together between kept ones ([outer, reduced,
// inner]: a mean over a map's channels) add 256 neighbouring outputs at a time, row by row
// (native/src/cpu/ops/reduce.cc). Each output must still be its values added in order from 0 in
// double, then rounded (and divided, for the mean), bit for bit: what the per-output walk gives.
describe('ReduceSum and ReduceMean over a middle block of axes, bit for bit', () => {
  const cases: Array<[number[], number[], number]> = [
    [[2, 64, 7, 9], [1], 1],          // channels of two maps
    [[3, 5, 4, 300], [1, 2], 0],      // two reduced dims; rows of 300 outputs (a chunk of 256 and 44)
    [[1, 6, 1, 33], [1], 1],          // size-1 dims on both sides
    [[2, 1, 5, 1, 3], [0, 1], 0],     // the block first, a size-1 dim inside it
    [[40, 17, 520], [1], 1],          // 40 x 3 chunks: both threads busy
  ];
  for (const [dims, axes, keepdims] of cases) {
    it.each([[1, 'ReduceSum'], [2, 'ReduceSum'], [1, 'ReduceMean'], [2, 'ReduceMean']] as const)(
      `over [${dims.join(', ')}] axes [${axes.join(', ')}] (threads %i, %s)`, async (threads, op) => {
        const count = dims.reduce((a, b) => a * b, 1);
        const data = new Float32Array(randomValues(count, 70 + dims.length, 1e3));
        const model = new OnnxGraphBuilder('block', 13).input('x', 'FLOAT', dims)
          .initializer('axes', 'INT64', [axes.length], axes.map(BigInt))
          .node(op, op === 'ReduceSum' ? ['x', 'axes'] : ['x'], ['y'], op === 'ReduceSum' ? { keepdims } : { axes, keepdims }, 'reduce')
          .output('y', 'FLOAT', undefined).encode();
        const file = path.join(dir, `block-${op}-${dims.join('x')}.onnx`);
        writeFileSync(file, model);
        // The expected values: per output, its inputs in row-major order of the reduced dims.
        const reduced = dims.map((_, d) => axes.includes(d));
        const strides = dims.map((_, d) => dims.slice(d + 1).reduce((a, b) => a * b, 1));
        const keptDims = dims.filter((_, d) => !reduced[d]), redDims = dims.filter((_, d) => reduced[d]);
        const keptStrides = strides.filter((_, d) => !reduced[d]), redStrides = strides.filter((_, d) => reduced[d]);
        const offsets = (shape: number[], st: number[], n: number) => Array.from({ length: n }, (_, i) => {
          let rem = i, off = 0;
          for (let d = shape.length - 1; d >= 0; d--) { off += (rem % shape[d]) * st[d]; rem = Math.floor(rem / shape[d]); }
          return off;
        });
        const nOut = keptDims.reduce((a, b) => a * b, 1), nRed = redDims.reduce((a, b) => a * b, 1);
        const redOff = offsets(redDims, redStrides, nRed);
        const want = Float32Array.from(offsets(keptDims, keptStrides, nOut), (base) => {
          let sum = 0;
          for (const off of redOff) sum += data[base + off];
          return op === 'ReduceMean' ? sum / nRed : sum;
        });
        const session = CpuSession.load(file, { intraOpThreads: threads });
        try {
          const [out] = await session.run([{ name: 'x', datatype: 'FP32', dims, data }]);
          expect(bitDifferences(out, { ...out, data: want })).toEqual({ count: 0, first: -1 });
        } finally {
          session.close();
        }
      });
  }
});
