/**
 * 2-D and 1-D pooling (native/src/cpu/ops/pool.cc) against ONNX Runtime, over the paths the engine
 * picks by window: MaxPool's interior outputs through the ISA's row (AVX-512: 2×2 stride 2 by
 * even/odd permutes, stride 1 and 2 with any window from column maxima; AVX2 and portable: the
 * compiled loop), the border outputs one by one, Indices, and AveragePool with and without the
 * padding counted. Rows are not multiples of 16 outputs so the masked tails run too; batch 2 on 2
 * threads splits the planes. test/core/executor/cpu/isa-*.test.ts run it again on every other ISA.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { bitDifferences } from '../../../helpers/fusion-check.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { expectCpuMatchesOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface PoolCase {
  name: string;
  op: 'MaxPool' | 'AveragePool';
  input: number[]; // N, C, spatial...
  kernel: number[];
  strides?: number[];
  pads?: number[];
  dilations?: number[];
  ceil?: boolean;
  countIncludePad?: boolean;
  opset?: number; // 13 unless given (AveragePool takes dilations from 19)
}

let saved = 0;
function poolModel(c: PoolCase): string {
  const g = new OnnxGraphBuilder('pool', c.opset ?? 13);
  g.input('input', 'FLOAT', ['batch', ...c.input.slice(1)]);
  const attrs: Record<string, number | number[]> = { kernel_shape: c.kernel, strides: c.strides ?? c.kernel.map(() => 1) };
  if (c.pads) attrs.pads = c.pads;
  if (c.dilations) attrs.dilations = c.dilations;
  if (c.ceil) attrs.ceil_mode = 1;
  if (c.countIncludePad) attrs.count_include_pad = 1;
  g.node(c.op, ['input'], ['output'], attrs, 'pool');
  g.output('output', 'FLOAT', undefined);
  const file = path.join(dir, `p${saved++}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

const same = [1, 1, 1, 1];
const cases: PoolCase[] = [
  { name: 'MaxPool 2x2 stride 2, rows of 12', op: 'MaxPool', input: [1, 5, 24, 24], kernel: [2, 2], strides: [2, 2] },
  { name: 'MaxPool 2x2 stride 2, odd input (rows of 18, one column left over)', op: 'MaxPool', input: [1, 3, 37, 37], kernel: [2, 2], strides: [2, 2] },
  // AVX-512 takes whole planes of 2×2 stride-2 windows in one call (pool_rows.h MaxPool2x2PlanesFn).
  { name: 'MaxPool 2x2 stride 2, 7x7 planes (3x3 out), batch 3', op: 'MaxPool', input: [3, 7, 7, 7], kernel: [2, 2], strides: [2, 2] },
  { name: 'MaxPool 3x3 stride 2 pad 1 (the ResNet stem pool)', op: 'MaxPool', input: [1, 3, 112, 112], kernel: [3, 3], strides: [2, 2], pads: same },
  { name: 'MaxPool 3x3 stride 2 pad 1, odd sizes', op: 'MaxPool', input: [1, 4, 57, 45], kernel: [3, 3], strides: [2, 2], pads: same },
  { name: 'MaxPool 3x3 stride 2 no pads, rows of 33 outputs', op: 'MaxPool', input: [1, 2, 9, 67], kernel: [3, 3], strides: [2, 2] },
  { name: 'MaxPool 3x3 stride 1 pad 1', op: 'MaxPool', input: [1, 4, 20, 37], kernel: [3, 3], pads: same },
  { name: 'MaxPool 3x3 stride 1, one output a row', op: 'MaxPool', input: [1, 2, 5, 3], kernel: [3, 3] },
  // Stride 1 takes whole planes (pool_rows.h MaxStride1PlanesFn): GoogLeNet's branch pool, YOLO's
  // SPPF 5×5 over two images, a dilation with asymmetric pads, a window taller than wide.
  { name: 'MaxPool 3x3 stride 1 pad 1, 28x28 (GoogLeNet branch)', op: 'MaxPool', input: [1, 8, 28, 28], kernel: [3, 3], pads: same },
  { name: 'MaxPool 5x5 stride 1 pad 2, 20x20, batch 2 (YOLO SPPF)', op: 'MaxPool', input: [2, 6, 20, 20], kernel: [5, 5], pads: [2, 2, 2, 2] },
  { name: 'MaxPool 3x3 stride 1 dilation 2 asymmetric pads', op: 'MaxPool', input: [1, 3, 13, 17], kernel: [3, 3], pads: [2, 1, 0, 2], dilations: [2, 2] },
  { name: 'MaxPool 4x2 stride 1 asymmetric pads', op: 'MaxPool', input: [1, 2, 9, 11], kernel: [4, 2], pads: [1, 1, 2, 0] },
  { name: 'MaxPool 5x5 stride 2 pad 2', op: 'MaxPool', input: [1, 3, 30, 41], kernel: [5, 5], strides: [2, 2], pads: [2, 2, 2, 2] },
  { name: 'MaxPool 3x3 stride 2 dilation 2 pad 2', op: 'MaxPool', input: [1, 3, 25, 38], kernel: [3, 3], strides: [2, 2], pads: [2, 2, 2, 2], dilations: [2, 2] },
  // AVX-512 keeps stride 2's column maxima in two registers while a chunk's columns fit 32 lanes;
  // 17x17 -> 8x8 is one chunk a row, and a window reaching 31 columns goes through the buffer.
  { name: 'MaxPool 3x3 stride 2, 17x17 (one chunk a row)', op: 'MaxPool', input: [1, 6, 17, 17], kernel: [3, 3], strides: [2, 2] },
  { name: 'MaxPool 3x7 stride 2 dilation 1x5 (31 columns a window)', op: 'MaxPool', input: [1, 2, 12, 90], kernel: [3, 7], strides: [2, 2], dilations: [1, 5] },
  { name: 'MaxPool 3x2 strides 1 x 2', op: 'MaxPool', input: [1, 3, 14, 35], kernel: [3, 2], strides: [1, 2], pads: [1, 0, 1, 1] },
  { name: 'MaxPool 2x2 stride 2 ceil_mode', op: 'MaxPool', input: [1, 3, 15, 19], kernel: [2, 2], strides: [2, 2], ceil: true },
  { name: 'MaxPool 3x3 stride 2 asymmetric pads', op: 'MaxPool', input: [1, 3, 16, 23], kernel: [3, 3], strides: [2, 2], pads: [0, 1, 1, 0] },
  { name: 'MaxPool 3x3 stride 3 (the generic row)', op: 'MaxPool', input: [1, 3, 19, 50], kernel: [3, 3], strides: [3, 3], pads: same },
  { name: 'MaxPool 1-D 3 stride 2 pad 1', op: 'MaxPool', input: [1, 6, 101], kernel: [3], strides: [2], pads: [1, 1] },
  { name: 'AveragePool 3x3 stride 2 pad 1', op: 'AveragePool', input: [1, 3, 29, 31], kernel: [3, 3], strides: [2, 2], pads: same },
  { name: 'AveragePool 3x3 stride 2 pad 1, padding counted', op: 'AveragePool', input: [1, 3, 29, 31], kernel: [3, 3], strides: [2, 2], pads: same, countIncludePad: true },
  { name: 'AveragePool 2x2 stride 2 ceil_mode, padding counted', op: 'AveragePool', input: [1, 2, 13, 17], kernel: [2, 2], strides: [2, 2], ceil: true, countIncludePad: true },
  // Row sums then column sums (pool.cc's AveragePlanes): Inception's 3×3 stride 1 pad 1 with the
  // padding counted, a ceil_mode overhang not counted, asymmetric pads, strides 1 × 3, a 1-D pool,
  // a window larger than the input.
  { name: 'AveragePool 3x3 stride 1 pad 1, padding counted (Inception)', op: 'AveragePool', input: [1, 6, 35, 35], kernel: [3, 3], pads: same, countIncludePad: true },
  { name: 'AveragePool 3x3 stride 2 ceil_mode, padding not counted', op: 'AveragePool', input: [1, 3, 16, 22], kernel: [3, 3], strides: [2, 2], pads: same, ceil: true },
  { name: 'AveragePool 4x3 strides 1 x 3 asymmetric pads, padding counted', op: 'AveragePool', input: [1, 3, 17, 40], kernel: [4, 3], strides: [1, 3], pads: [2, 0, 1, 2], countIncludePad: true },
  { name: 'AveragePool 1-D 5 stride 2 pad 2', op: 'AveragePool', input: [1, 4, 63], kernel: [5], strides: [2], pads: [2, 2] },
  { name: 'AveragePool 7x7 over a 5x6 plane, pad 3', op: 'AveragePool', input: [1, 2, 5, 6], kernel: [7, 7], pads: [3, 3, 3, 3] },
  // Stride 1 with the output the input's shape, rows under 40 (AVX-512: whole planes taken flat,
  // pool_avx512.cc AverageSamePlanes): Inception's 17x17 and 8x8 with and without the padding
  // counted, a plane a multiple of 16, a dilated 3x3, a window of asymmetric pads, the largest
  // plane the flat walk takes (39 x 105 = 4095) and one just past it.
  { name: 'AveragePool 3x3 stride 1 pad 1, 17x17, padding counted', op: 'AveragePool', input: [1, 5, 17, 17], kernel: [3, 3], pads: same, countIncludePad: true },
  { name: 'AveragePool 3x3 stride 1 pad 1, 8x8, padding not counted', op: 'AveragePool', input: [1, 7, 8, 8], kernel: [3, 3], pads: same },
  { name: 'AveragePool 3x3 stride 1 pad 1, 4x4 planes', op: 'AveragePool', input: [1, 9, 4, 4], kernel: [3, 3], pads: same, countIncludePad: true },
  { name: 'AveragePool 3x3 stride 1 dilation 2 pad 2, 13x11', op: 'AveragePool', input: [1, 3, 13, 11], kernel: [3, 3], pads: [2, 2, 2, 2], dilations: [2, 2], opset: 19 },
  { name: 'AveragePool 2x4 stride 1 asymmetric pads keeping the shape', op: 'AveragePool', input: [1, 3, 9, 23], kernel: [2, 4], pads: [1, 2, 0, 1], countIncludePad: true },
  { name: 'AveragePool 3x3 stride 1 pad 1, 105x39 (the largest flat plane)', op: 'AveragePool', input: [1, 2, 105, 39], kernel: [3, 3], pads: same },
  { name: 'AveragePool 3x3 stride 1 pad 1, 106x39 (past it)', op: 'AveragePool', input: [1, 2, 106, 39], kernel: [3, 3], pads: same },
];

let seed = 900;
describe('pooling paths vs ONNX Runtime', () => {
  for (const c of cases) {
    it.each([[1, 1], [1, 2], [2, 2]])(`${c.name} (batch %i, threads %i)`, async (batch, threads) => {
      const model = poolModel(c);
      const dims = [batch, ...c.input.slice(1)];
      const input: CpuTensor = { name: 'input', datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed++, 1) };
      // A maximum is one of its inputs: exact. An average sums in another order than ORT's.
      await expectCpuMatchesOrt(model, input, threads, c.op === 'MaxPool' ? 1e-7 : 1e-4);
    });
  }
});

// AveragePool without the padding counted, in the order every ISA's planes add (pool_rows.h
// AveragePlanesBody): per input row the window's columns from +0 in tap order, per output the
// window's rows from +0 in row order, over the count of taps inside the plane. The engine must
// equal it bit for bit on every ISA (the isa-* suites run this file again): AVX-512 takes stride 1
// and stride 2 in registers (stride 2: the even lanes of two input vectors), the others the loop
// (2×2 at stride 2: a pair loop where both taps are inside, the per-tap loops at the borders).
function serialAverage2d(x: Float32Array, planes: number, ih: number, iw: number, c: PoolCase, oh: number, ow: number): Float32Array {
  const [kh, kw] = c.kernel as [number, number];
  const [sh, sw] = (c.strides ?? [1, 1]) as [number, number];
  const [dh, dw] = (c.dilations ?? [1, 1]) as [number, number];
  const [ph, pw] = (c.pads ?? [0, 0, 0, 0]) as [number, number];
  const y = new Float32Array(planes * oh * ow);
  for (let p = 0; p < planes; p++) {
    for (let yo = 0; yo < oh; yo++) {
      for (let xo = 0; xo < ow; xo++) {
        let sum = 0;
        let rows = 0;
        let cols = 0;
        for (let a = 0; a < kh; a++) {
          const r = yo * sh + a * dh - ph;
          if (r < 0 || r >= ih) continue;
          rows++;
          let h = 0;
          cols = 0;
          for (let b = 0; b < kw; b++) {
            const col = xo * sw + b * dw - pw;
            if (col < 0 || col >= iw) continue;
            cols++;
            h = Math.fround(h + x[(p * ih + r) * iw + col]!);
          }
          sum = Math.fround(sum + h);
        }
        if (rows === 0) {
          for (let b = 0; b < kw; b++) {
            const col = xo * sw + b * dw - pw;
            if (col >= 0 && col < iw) cols++;
          }
        }
        y[(p * oh + yo) * ow + xo] = Math.fround(sum / Math.max(rows * cols, 1));
      }
    }
  }
  return y;
}

const exactAverageCases: PoolCase[] = [
  { name: '2x2 stride 2, 56x56 (DenseNet transition: a chunk and a tail of 12 a row)', op: 'AveragePool', input: [1, 4, 56, 56], kernel: [2, 2], strides: [2, 2] },
  { name: '2x2 stride 2, 37x37 (a column left over)', op: 'AveragePool', input: [1, 3, 37, 37], kernel: [2, 2], strides: [2, 2] },
  { name: '2x2 stride 2, 5x140 (five chunks a row)', op: 'AveragePool', input: [1, 2, 5, 140], kernel: [2, 2], strides: [2, 2] },
  { name: '2x2 stride 2 pad 1, 9x13 (a border output each side)', op: 'AveragePool', input: [1, 3, 9, 13], kernel: [2, 2], strides: [2, 2], pads: same },
  { name: '2x2 stride 2 dilation 2, 12x31', op: 'AveragePool', input: [1, 2, 12, 31], kernel: [2, 2], strides: [2, 2], dilations: [2, 2], opset: 19 },
  { name: '2x2 stride 2 ceil_mode, 11x17 (the last window half outside)', op: 'AveragePool', input: [1, 2, 11, 17], kernel: [2, 2], strides: [2, 2], ceil: true },
  { name: '3x3 stride 2 pad 1, 29x31', op: 'AveragePool', input: [1, 3, 29, 31], kernel: [3, 3], strides: [2, 2], pads: same },
  { name: '3x3 stride 2 ceil_mode pad 1, 16x22', op: 'AveragePool', input: [1, 3, 16, 22], kernel: [3, 3], strides: [2, 2], pads: same, ceil: true },
  { name: '3x3 stride 2 dilation 2 pad 2, 19x45', op: 'AveragePool', input: [1, 2, 19, 45], kernel: [3, 3], strides: [2, 2], pads: [2, 2, 2, 2], dilations: [2, 2], opset: 19 },
  { name: '3x5 strides 1 x 2 asymmetric pads, 11x70', op: 'AveragePool', input: [1, 2, 11, 70], kernel: [3, 5], strides: [1, 2], pads: [1, 2, 0, 1] },
  { name: '3x3 stride 1 pad 1, 20x50', op: 'AveragePool', input: [1, 3, 20, 50], kernel: [3, 3], pads: same },
];

describe('AveragePool bit for bit against the planes order', () => {
  for (const c of exactAverageCases) {
    it.each([[1, 1], [2, 2]])(`${c.name} (batch %i, threads %i)`, async (batch, threads) => {
      const dims = [batch, ...c.input.slice(1)];
      const data = randomValues(dims.reduce((a, b) => a * b, 1), seed++, 1);
      // Signed zeros where the window sums start: the sums from +0 never carry a -0.
      for (let i = 0; i < data.length; i += 7) data[i] = -0;
      const session = CpuSession.load(poolModel(c), { intraOpThreads: threads });
      try {
        const [out] = await session.run([{ name: 'input', datatype: 'FP32', dims, data }]);
        const [, , oh, ow] = out!.dims as [number, number, number, number];
        const expected = serialAverage2d(data, batch * dims[1]!, dims[2]!, dims[3]!, c, oh, ow);
        expect(bitDifferences(out!, { ...out!, data: expected })).toEqual({ count: 0, first: -1 });
      } finally {
        session.close();
      }
    });
  }
});

// GlobalAveragePool sums each plane as ReduceMean does (SumRow, in double); GlobalMaxPool keeps
// MaxPool's rule (v > m ? v : m from -inf: NaN skipped, the first of equal zeros kept) over eight
// independent maxima. Plane sizes around those eight and the vector widths, one plane of one value.
function globalPoolModel(op: 'GlobalAveragePool' | 'GlobalMaxPool', channels: number, spatial: number[]): string {
  const g = new OnnxGraphBuilder('global_pool', 13);
  g.input('input', 'FLOAT', ['batch', channels, ...spatial]);
  g.node(op, ['input'], ['output'], {}, 'pool');
  g.output('output', 'FLOAT', undefined);
  const file = path.join(dir, `g${saved++}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

/** MaxPool's rule over one plane, one value after another: what the engine's maxima must equal bit for bit. */
function serialMax(plane: Float32Array): number {
  let best = -Infinity;
  for (const v of plane) best = v > best ? v : best;
  return best;
}

const globalShapes: number[][] = [[112, 112], [7, 7], [13], [1, 1], [3, 5, 2]];
describe('global pooling vs ONNX Runtime and a serial reference', () => {
  for (const spatial of globalShapes) {
    const size = spatial.reduce((a, b) => a * b, 1);
    it.each([[1, 1], [2, 2]])(`GlobalAveragePool over [${spatial.join(', ')}] (batch %i, threads %i)`, async (batch, threads) => {
      const dims = [batch, 6, ...spatial];
      const data = randomValues(dims.reduce((a, b) => a * b, 1), seed++, 1);
      const model = globalPoolModel('GlobalAveragePool', 6, spatial);
      const input: CpuTensor = { name: 'input', datatype: 'FP32', dims, data };
      // ORT sums in float (another order): means near zero differ in their last places.
      await expectCpuMatchesOrt(model, input, threads, 1e-4);
      const session = CpuSession.load(model, { intraOpThreads: threads });
      try {
        const [out] = await session.run([input]);
        // The mean in double, rounded once: what a float sum carried through the plane is not.
        const expected = new Float32Array(batch * 6).map((_, p) => {
          let sum = 0;
          for (let i = 0; i < size; i++) sum += data[p * size + i];
          return sum / size;
        });
        expect(bitDifferences(out, { ...out, data: expected })).toEqual({ count: 0, first: -1 });
      } finally {
        session.close();
      }
    });
    it.each([[1, 1], [2, 2]])(`GlobalMaxPool over [${spatial.join(', ')}] with NaN and signed zeros (batch %i, threads %i)`, async (batch, threads) => {
      const planes = batch * 5;
      const data = new Float32Array(randomValues(planes * size, seed++, 1));
      // Plane 0 as drawn; 1: NaN in every other place; 2: all NaN; 3: negatives with +0 and -0
      // late (the chain keeps the first zero); 4: -0 before +0 in the last places.
      for (let i = 0; i < size; i++) {
        data[size + i] = i % 2 ? NaN : data[size + i];
        data[2 * size + i] = NaN;
        data[3 * size + i] = -Math.abs(data[3 * size + i]) - 1;
        data[4 * size + i] = -Math.abs(data[4 * size + i]) - 1;
      }
      if (size > 1) {
        data[3 * size + size - 1] = -0;
        data[3 * size + Math.floor(size / 2)] = 0;
        data[4 * size + size - 2] = -0;
        data[4 * size + size - 1] = 0;
      }
      const session = CpuSession.load(globalPoolModel('GlobalMaxPool', 5, spatial), { intraOpThreads: threads });
      try {
        const [out] = await session.run([{ name: 'input', datatype: 'FP32', dims: [batch, 5, ...spatial], data }]);
        const expected = new Float32Array(planes).map((_, p) => serialMax(data.subarray(p * size, (p + 1) * size)));
        expect(bitDifferences(out, { ...out, data: expected })).toEqual({ count: 0, first: -1 });
      } finally {
        session.close();
      }
    });
  }
});
