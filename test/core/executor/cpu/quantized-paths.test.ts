/**
 * The integer convolutions (QLinearConv, ConvInteger and the DQ → Conv → [Relu] → Q chains the QDQ
 * fusion turns into them), each against ONNX Runtime at 1 and 2 threads: QLinearConv and ConvInteger
 * nodes bit-exactly over the type pairs, per-channel scales, zero points (nonzero weight zero points
 * need the column-sum correction), groups, depthwise, strides, dilations, asymmetric pads, 1-D, and
 * the direct fallbacks (3-D; K beyond the integer GEMM's exact range); then quantize_static-style QDQ
 * CNNs (test/helpers/qdq-models.ts, also the bench's int8 row). Where ONNX Runtime itself fuses them
 * (Relu made redundant by the output zero point, INT32 bias) the results are bit-exact; where it runs
 * FP32 Conv + QuantizeLinear (a Relu that clips, FP32 bias) ours differ from its by at most one
 * quantisation step, on a small share of elements (FP32 rounding of the same sum). isa-*.test.ts run
 * this file again on every other ISA the CPU has.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, cpuGemmIsa, cpuQgemmIsa, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';
import { runOrt } from '../../../helpers/onnx-runtime.js';
import { qdqCnn, type QdqCnnOptions } from '../../../helpers/qdq-models.js';

const agree = ortAgreement('gebe-qconv-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-qdq-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('integer GEMM kernels', () => {
  it('follow the engine ISA (avx512 → VNNI where the CPU has it, else the AVX2 kernels)', () => {
    const vnni = existsSync('/proc/cpuinfo') && /\bavx512_vnni\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
    const expected: Record<string, string> = { portable: 'portable', neon: 'portable', avx2: 'avx2', avx512: vnni ? 'avx512vnni' : 'avx2' };
    if (process.platform === 'linux' || cpuGemmIsa() !== 'avx512') expect(cpuQgemmIsa()).toBe(expected[cpuGemmIsa()]);
  });
});

type Int8Type = 'UINT8' | 'INT8';
const range = (t: Int8Type) => (t === 'UINT8' ? [0, 255] : [-128, 127]);
function ints(count: number, seed: number, t: Int8Type): number[] {
  const [lo, hi] = range(t);
  return Array.from(randomValues(count, seed, 1), (v) => Math.min(hi, Math.max(lo, Math.round(lo + (v + 1) / 2 * (hi - lo)))));
}
function tensor(name: string, t: Int8Type, dims: number[], values: number[]): CpuTensor {
  return { name, datatype: t, dims, data: t === 'UINT8' ? Uint8Array.from(values) : Int8Array.from(values) };
}

interface QConvCase {
  name: string;
  x: Int8Type;
  w: Int8Type;
  input: number[];
  out: number;
  kernel: number[];
  strides?: number[];
  pads?: number[];
  dilations?: number[];
  group?: number;
  xZero: number;
  wZero: number[];   // one (per tensor) or one per output channel
  perChannelScale?: boolean;
  bias?: boolean;
}

let seed = 900;
function attrsOf(c: QConvCase) {
  return {
    kernel_shape: c.kernel, strides: c.strides ?? c.kernel.map(() => 1), pads: c.pads ?? c.kernel.map(() => 0).concat(c.kernel.map(() => 0)),
    group: c.group ?? 1, ...(c.dilations ? { dilations: c.dilations } : {}),
  };
}
function wDims(c: QConvCase) {
  return [c.out, c.input[1] / (c.group ?? 1), ...c.kernel];
}

function qlinearConv(c: QConvCase): Uint8Array {
  const g = new OnnxGraphBuilder('qconv', 13).input('x', c.x, c.input);
  const wd = wDims(c);
  const wCount = wd.reduce((a, b) => a * b, 1);
  const k = wCount / c.out;
  g.initializer('x_scale', 'FLOAT', [], [0.02]).initializer('x_zp', c.x, [], [c.xZero]);
  g.initializer('w', c.w, wd, ints(wCount, seed++, c.w));
  const scales = c.perChannelScale ? Array.from(randomValues(c.out, seed++, 1), (v) => 0.004 + 0.002 * v) : [0.005];
  g.initializer('w_scale', 'FLOAT', [scales.length], scales).initializer('w_zp', c.w, [c.wZero.length], c.wZero);
  // y_scale sized so that the outputs spread over the 8-bit range (and some saturate).
  g.initializer('y_scale', 'FLOAT', [], [0.02 * 0.005 * 40 * Math.sqrt(k)]).initializer('y_zp', c.x, [], [c.x === 'UINT8' ? 120 : -3]);
  const inputs = ['x', 'x_scale', 'x_zp', 'w', 'w_scale', 'w_zp', 'y_scale', 'y_zp'];
  if (c.bias) {
    g.initializer('B', 'INT32', [c.out], Array.from(randomValues(c.out, seed++, 5000), Math.round));
    inputs.push('B');
  }
  g.node('QLinearConv', inputs, ['y'], attrsOf(c));
  return g.output('y', c.x).encode();
}

function convInteger(c: QConvCase): Uint8Array {
  const g = new OnnxGraphBuilder('convint', 13).input('x', c.x, c.input);
  const wd = wDims(c);
  g.initializer('w', c.w, wd, ints(wd.reduce((a, b) => a * b, 1), seed++, c.w));
  g.initializer('x_zp', c.x, [], [c.xZero]).initializer('w_zp', c.w, [c.wZero.length], c.wZero);
  g.node('ConvInteger', ['x', 'w', 'x_zp', 'w_zp'], ['y'], attrsOf(c));
  return g.output('y', 'INT32').encode();
}

const qlinearCases: QConvCase[] = [
  // 437 output columns: several column blocks and a partial panel; 20 channels: a partial weight panel.
  { name: 'u8 × s8, per-channel scales, bias, 3x3 pad 1, batch 2', x: 'UINT8', w: 'INT8', input: [2, 7, 23, 19], out: 20, kernel: [3, 3], pads: [1, 1, 1, 1], xZero: 3, wZero: [0], perChannelScale: true, bias: true },
  { name: 'u8 × u8, weight zero point, stride 2, asymmetric pads', x: 'UINT8', w: 'UINT8', input: [1, 6, 33, 29], out: 9, kernel: [3, 3], strides: [2, 2], pads: [0, 1, 1, 0], xZero: 128, wZero: [120], bias: true },
  { name: 's8 × s8, grouped, dilation 2', x: 'INT8', w: 'INT8', input: [1, 12, 20, 20], out: 18, kernel: [3, 3], dilations: [2, 2], pads: [2, 2, 2, 2], group: 3, xZero: -5, wZero: [0] },
  { name: 'depthwise 3x3', x: 'UINT8', w: 'INT8', input: [1, 16, 14, 14], out: 16, kernel: [3, 3], pads: [1, 1, 1, 1], group: 16, xZero: 10, wZero: [0], perChannelScale: true },
  { name: 'pointwise 1x1, 70 channels', x: 'UINT8', w: 'INT8', input: [1, 40, 9, 11], out: 70, kernel: [1, 1], xZero: 0, wZero: [0], bias: true },
  { name: 'u8 × u8, per-channel weight zero points', x: 'UINT8', w: 'UINT8', input: [1, 4, 17, 17], out: 6, kernel: [3, 3], xZero: 1, wZero: [1, 50, 128, 200, 0, 255], perChannelScale: true },
  { name: '1-D', x: 'UINT8', w: 'UINT8', input: [1, 8, 150], out: 10, kernel: [5], pads: [2, 2], xZero: 7, wZero: [128] },
  // Strides past 1 run over phase planes: a kernel narrower than the stride, 1×1 stride 2, 7×7 stride 2 pad 3, 1-D stride 2.
  { name: 's8 × s8, 2x2 kernel, stride 3, pads, batch 2', x: 'INT8', w: 'INT8', input: [2, 5, 20, 22], out: 12, kernel: [2, 2], strides: [3, 3], pads: [1, 0, 2, 1], xZero: -9, wZero: [0] },
  { name: 'u8 × s8, 1x1 stride 2, per-channel scales', x: 'UINT8', w: 'INT8', input: [1, 24, 15, 14], out: 40, kernel: [1, 1], strides: [2, 2], xZero: 128, wZero: [0], perChannelScale: true, bias: true },
  { name: 'u8 × s8, 7x7 stride 2 pad 3 (a ResNet stem)', x: 'UINT8', w: 'INT8', input: [1, 3, 45, 38], out: 16, kernel: [7, 7], strides: [2, 2], pads: [3, 3, 3, 3], xZero: 0, wZero: [0], bias: true },
  { name: '1-D stride 2', x: 'UINT8', w: 'INT8', input: [1, 6, 101], out: 9, kernel: [3], strides: [2], pads: [1, 1], xZero: 30, wZero: [0] },
  { name: '3-D (direct convolution)', x: 'UINT8', w: 'INT8', input: [1, 3, 6, 7, 5], out: 4, kernel: [3, 3, 3], pads: [1, 1, 1, 1, 1, 1], xZero: 9, wZero: [0] },
  { name: 'K beyond the exact GEMM range (direct convolution)', x: 'UINT8', w: 'INT8', input: [1, 2000, 3, 3], out: 4, kernel: [3, 3], pads: [1, 1, 1, 1], xZero: 17, wZero: [0] },
  // The transposed form on AVX-512 VNNI (quantized_conv_transposed.cc: one group, no weight zero
  // point, 32 or more output channels, at most a fifth of K lost to padding the input channels to
  // a multiple of 4, taps × padded channels within the GEMM's exact range); the other ISAs, and
  // these cases past a limit, run the panel path.
  // 196 positions (3 chunks of 64 and one of 4), 70 channels (a 64-channel block and a 16-wide one
  // with 6 real), rows of 14 (the transposes' 8- and 4-column blocks).
  { name: 'transposed: 14x14, 64 -> 70 channels, 3x3 pad 1', x: 'UINT8', w: 'INT8', input: [1, 64, 14, 14], out: 70, kernel: [3, 3], pads: [1, 1, 1, 1], xZero: 9, wZero: [0], perChannelScale: true, bias: true },
  { name: 'transposed: 32 channels (the least), 15x14', x: 'UINT8', w: 'INT8', input: [1, 16, 15, 14], out: 32, kernel: [3, 3], pads: [1, 1, 1, 1], xZero: 9, wZero: [0], bias: true },
  { name: 'transposed past a limit: 31 channels (panel path)', x: 'UINT8', w: 'INT8', input: [1, 8, 10, 10], out: 31, kernel: [3, 3], pads: [1, 1, 1, 1], xZero: 4, wZero: [0] },
  // 7 channels (padded to 8), 33 outputs (a 48-wide block), stride 2 with asymmetric pads, batch 2.
  { name: 'transposed: 7 -> 33 channels, stride 2, asymmetric pads, batch 2', x: 'UINT8', w: 'INT8', input: [2, 7, 19, 17], out: 33, kernel: [3, 3], strides: [2, 2], pads: [1, 0, 0, 1], xZero: 77, wZero: [0], bias: true },
  { name: 'transposed past a limit: 6 channels, a quarter padding (panel path)', x: 'UINT8', w: 'INT8', input: [1, 6, 19, 17], out: 33, kernel: [3, 3], strides: [2, 2], pads: [1, 0, 0, 1], xZero: 77, wZero: [0], bias: true },
  { name: 'transposed past a limit: 5x5 taps x 656 padded channels > 16384 (panel path)', x: 'UINT8', w: 'INT8', input: [1, 655, 4, 3], out: 32, kernel: [5, 5], pads: [2, 2, 2, 2], xZero: 3, wZero: [0] },
  // INT8 activations (sign bits flipped in the copy), 130 channels (not a multiple of 4 or 16), a 7×7 plane.
  { name: 'transposed: s8 x s8, 7x7, 130 -> 96 channels', x: 'INT8', w: 'INT8', input: [1, 130, 7, 7], out: 96, kernel: [3, 3], pads: [1, 1, 1, 1], xZero: -3, wZero: [0], perChannelScale: true, bias: true },
  { name: 'transposed: dilation 2, pad 2, 13x13', x: 'UINT8', w: 'INT8', input: [1, 12, 13, 13], out: 32, kernel: [3, 3], dilations: [2, 2], pads: [2, 2, 2, 2], xZero: 200, wZero: [0] },
  // A 56×40 plane (35 chunks of 64 positions; input rows of 40: the transposes' 16- and 8-column blocks), and a 1×1 stride 2.
  { name: 'transposed: 56x40, 16 -> 48 channels', x: 'UINT8', w: 'INT8', input: [1, 16, 56, 40], out: 48, kernel: [3, 3], pads: [1, 1, 1, 1], xZero: 5, wZero: [0], bias: true },
  { name: 'transposed: 1x1 stride 2, 32 -> 64 channels', x: 'UINT8', w: 'INT8', input: [1, 32, 29, 30], out: 64, kernel: [1, 1], strides: [2, 2], xZero: 0, wZero: [0], perChannelScale: true },
  // UINT8 weights with zero point 128 (0 once normalised to INT8), 1-D.
  { name: 'transposed: 1-D, u8 weights with zero point 128', x: 'UINT8', w: 'UINT8', input: [1, 9, 60], out: 40, kernel: [5], pads: [2, 2], xZero: 7, wZero: [128] },
];

const convIntegerCases: QConvCase[] = [
  { name: 'u8 × u8 with zero points, 3x3 pad 1', x: 'UINT8', w: 'UINT8', input: [1, 5, 30, 31], out: 13, kernel: [3, 3], pads: [1, 1, 1, 1], xZero: 100, wZero: [110] },
  // ONNX Runtime's ConvInteger takes per-tensor zero points only (per-channel ones: QLinearConv above).
  { name: 'u8 × u8, weight zero point 200, stride 2, batch 2', x: 'UINT8', w: 'UINT8', input: [2, 4, 17, 17], out: 6, kernel: [3, 3], strides: [2, 2], xZero: 1, wZero: [200] },
];

function inputFor(c: QConvCase): CpuTensor[] {
  return [tensor('x', c.x, c.input, ints(c.input.reduce((a, b) => a * b, 1), seed++, c.x))];
}

for (const threads of [1, 2]) {
  describe(`QLinearConv on the integer GEMM, ${threads} thread(s), bit-exact with ONNX Runtime`, () => {
    for (const c of qlinearCases) it(c.name, () => agree(qlinearConv(c), inputFor(c), threads));
  });
  describe(`ConvInteger on the integer GEMM, ${threads} thread(s), bit-exact with ONNX Runtime`, () => {
    for (const c of convIntegerCases) it(c.name, () => agree(convInteger(c), inputFor(c), threads));
  });
}

/** The output (a DequantizeLinear'd FP32 tensor) in quantisation steps of `scale`, ours and ORT's. */
async function compareQdq(opts: QdqCnnOptions, threads: number, size: number) {
  const file = path.join(dir, `qdq_${JSON.stringify(opts).replace(/\W+/g, '_')}_${size}.onnx`);
  writeFileSync(file, qdqCnn({ ...opts, size }));
  const input: CpuTensor = { name: 'input', datatype: 'FP32', dims: [1, 3, size, size], data: randomValues(3 * size * size, 77, 1) };
  const session = CpuSession.load(file, { intraOpThreads: threads });
  try {
    const ops = session.info().optimizedOperators;
    const [out] = await session.run([input]);
    const ref = Object.values(await runOrt(file, [input], threads))[0];
    const step = opts.reluRange ? 0.025 : 0.05;
    const a = out.data as Float32Array, b = ref.data as Float32Array;
    let differing = 0, worst = 0;
    for (let i = 0; i < a.length; i++) {
      const d = Math.round(Math.abs(a[i] - b[i]) / step);
      if (d > 0) differing++;
      worst = Math.max(worst, d);
    }
    return { ops, differing, worst, count: a.length };
  } finally {
    session.close();
  }
}

for (const threads of [1, 2]) {
  describe(`QDQ CNNs (quantize_static form), ${threads} thread(s), against ONNX Runtime`, () => {
    for (const activation of ['UINT8', 'INT8'] as const) {
      it(`${activation} activations, Relu folded into the zero point, INT32 bias: fused and bit-exact`, async () => {
        const r = await compareQdq({ activation, int32Bias: true, reluRange: true }, threads, 20);
        expect(r.ops.QLinearConv).toBe(4);
        expect(r.ops.Conv ?? 0).toBe(0);
        expect(r.ops.Relu ?? 0).toBe(0);
        expect(r.ops.QuantizeLinear).toBe(1);  // the graph input's
        expect(r.ops.DequantizeLinear).toBe(1); // the graph output's
        expect(r.differing).toBe(0);
      });
      it(`${activation} activations, FP32 bias and a clipping Relu: fused, within one step of ORT's FP32 Conv`, async () => {
        const r = await compareQdq({ activation }, threads, 24);
        expect(r.ops.QLinearConv).toBe(4);
        expect(r.ops.Conv ?? 0).toBe(0);
        expect(r.worst).toBeLessThanOrEqual(1);
        expect(r.differing).toBeLessThan(r.count * 0.01);
      });
    }
    // The last two convs with 80 and 70 channels: the transposed form's FP32 epilogue (bias, Relu,
    // ÷ y_scale) on channels past its first 64-channel block.
    for (const activation of ['UINT8', 'INT8'] as const)
      it(`${activation} activations, FP32 bias, 80 and 70 channels: within one step`, async () => {
        const r = await compareQdq({ activation, channels: [3, 32, 64, 80, 70] }, threads, 24);
        expect(r.ops.QLinearConv).toBe(4);
        expect(r.worst).toBeLessThanOrEqual(1);
        expect(r.differing).toBeLessThan(r.count * 0.01);
      });
    it('UINT8 activations, INT32 bias, clipping Relu: within one step', async () => {
      const r = await compareQdq({ activation: 'UINT8', int32Bias: true }, threads, 24);
      expect(r.ops.QLinearConv).toBe(4);
      expect(r.worst).toBeLessThanOrEqual(1);
      expect(r.differing).toBeLessThan(r.count * 0.01);
    });
  });
}

describe('DQ → MaxPool → Q runs on the 8-bit values, bit-exact with ONNX Runtime', () => {
  const pools: Array<{ name: string; attrs: Record<string, number[] | number> & { kernel_shape: number[] } }> = [
    { name: '3x3 stride 2 pad 1', attrs: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] } },
    { name: '3x3 stride 2 ceil_mode, dilation 2', attrs: { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1, dilations: [2, 2] } },
    { name: '1-D 4 stride 3 asymmetric pads', attrs: { kernel_shape: [4], strides: [3], pads: [2, 1] } },
  ];
  for (const activation of ['UINT8', 'INT8'] as const)
    for (const p of pools)
      for (const threads of [1, 2])
        it(`${activation}, ${p.name}, ${threads} thread(s)`, async () => {
          const dims = p.attrs.kernel_shape.length === 1 ? [2, 3, 29] : [2, 3, 17, 15];
          const g = new OnnxGraphBuilder('qpool', 13).input('x', 'FLOAT', dims);
          g.initializer('s', 'FLOAT', [], [0.03]).initializer('z', activation, [], [activation === 'UINT8' ? 100 : -7]);
          g.node('QuantizeLinear', ['x', 's', 'z'], ['xq']).node('DequantizeLinear', ['xq', 's', 'z'], ['xd'])
            .node('MaxPool', ['xd'], ['p'], p.attrs).node('QuantizeLinear', ['p', 's', 'z'], ['y']);
          const file = path.join(dir, `pool_${activation}_${p.name.replace(/\W+/g, '_')}.onnx`);
          writeFileSync(file, g.output('y', activation).encode());
          const input: CpuTensor = { name: 'x', datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), 5, 4) };
          const session = CpuSession.load(file, { intraOpThreads: threads });
          try {
            expect(session.info().optimizedOperators).toEqual({ QuantizeLinear: 1, MaxPool: 1 });
            const [out] = await session.run([input]);
            const ref = (await runOrt(file, [input], threads)).y;
            expect(out.dims).toEqual(ref.dims.map(Number));
            expect(Array.from(out.data as Uint8Array)).toEqual(Array.from(ref.data as Uint8Array));
          } finally {
            session.close();
          }
        });
});

interface QMatMulCase {
  name: string;
  a: Int8Type;
  b: Int8Type;
  aDims: number[];
  n: number;
  aZero: number;
  bZero: number[];
  perColumn?: boolean;
}

const matmulCases: QMatMulCase[] = [
  { name: 'u8 × s8, 2-D, 100 rows (two row blocks)', a: 'UINT8', b: 'INT8', aDims: [100, 70], n: 33, aZero: 5, bZero: [0] },
  { name: 'u8 × u8, 3-D A, weight zero point', a: 'UINT8', b: 'UINT8', aDims: [2, 17, 40], n: 20, aZero: 128, bZero: [131] },
  { name: 's8 × s8, per-column scales', a: 'INT8', b: 'INT8', aDims: [9, 130], n: 17, aZero: -4, bZero: [0], perColumn: true },
  { name: 'u8 × u8, per-column zero points', a: 'UINT8', b: 'UINT8', aDims: [5, 12], n: 6, aZero: 3, bZero: [0, 10, 128, 200, 255, 7], perColumn: true },
];

function qlinearMatMul(c: QMatMulCase): Uint8Array {
  const k = c.aDims.at(-1) ?? 1;
  const g = new OnnxGraphBuilder('qmm', 13).input('a', c.a, c.aDims);
  const scales = c.perColumn ? Array.from(randomValues(c.n, seed++, 1), (v) => 0.004 + 0.002 * v) : [0.005];
  g.initializer('a_scale', 'FLOAT', [], [0.02]).initializer('a_zp', c.a, [], [c.aZero])
    .initializer('b', c.b, [k, c.n], ints(k * c.n, seed++, c.b)).initializer('b_scale', 'FLOAT', [scales.length], scales)
    .initializer('b_zp', c.b, [c.bZero.length], c.bZero)
    .initializer('y_scale', 'FLOAT', [], [0.02 * 0.005 * 40 * Math.sqrt(k)]).initializer('y_zp', c.a, [], [c.a === 'UINT8' ? 120 : -3]);
  g.node('QLinearMatMul', ['a', 'a_scale', 'a_zp', 'b', 'b_scale', 'b_zp', 'y_scale', 'y_zp'], ['y']);
  return g.output('y', c.a).encode();
}

function matMulInteger(c: QMatMulCase): Uint8Array {
  const k = c.aDims.at(-1) ?? 1;
  const g = new OnnxGraphBuilder('mmint', 13).input('a', c.a, c.aDims);
  g.initializer('b', c.b, [k, c.n], ints(k * c.n, seed++, c.b)).initializer('a_zp', c.a, [], [c.aZero]).initializer('b_zp', c.b, [c.bZero.length], c.bZero);
  g.node('MatMulInteger', ['a', 'b', 'a_zp', 'b_zp'], ['y']);
  return g.output('y', 'INT32').encode();
}

/** DQ(a) → MatMul(·, DQ(w)) → Q, as quantize_static writes a linear layer without bias. */
function qdqMatMul(c: QMatMulCase): Uint8Array {
  const k = c.aDims.at(-1) ?? 1;
  const g = new OnnxGraphBuilder('qdqmm', 13).input('a', c.a, c.aDims);
  const scales = c.perColumn ? Array.from(randomValues(c.n, seed++, 1), (v) => 0.004 + 0.002 * v) : [0.005];
  g.initializer('a_scale', 'FLOAT', [], [0.02]).initializer('a_zp', c.a, [], [c.aZero])
    .initializer('w', c.b, [k, c.n], ints(k * c.n, seed++, c.b)).initializer('w_scale', 'FLOAT', [scales.length], scales)
    .initializer('w_zp', c.b, [scales.length], scales.length > c.bZero.length ? scales.map(() => c.bZero[0]) : c.bZero)
    .initializer('y_scale', 'FLOAT', [], [0.02 * 0.005 * 40 * Math.sqrt(k)]).initializer('y_zp', c.a, [], [c.a === 'UINT8' ? 120 : -3]);
  g.node('DequantizeLinear', ['a', 'a_scale', 'a_zp'], ['a_dq']).node('DequantizeLinear', ['w', 'w_scale', 'w_zp'], ['w_dq'], { axis: 1 })
    .node('MatMul', ['a_dq', 'w_dq'], ['mm']).node('QuantizeLinear', ['mm', 'y_scale', 'y_zp'], ['y']);
  return g.output('y', c.a).encode();
}

const matmulInput = (c: QMatMulCase) => [tensor('a', c.a, c.aDims, ints(c.aDims.reduce((x, y) => x * y, 1), seed++, c.a))];

for (const threads of [1, 2]) {
  describe(`QLinearMatMul / MatMulInteger with constant B on the integer GEMM, ${threads} thread(s), bit-exact with ONNX Runtime`, () => {
    for (const c of matmulCases) {
      it(`QLinearMatMul ${c.name}`, () => agree(qlinearMatMul(c), matmulInput(c), threads));
      // ONNX Runtime's MatMulInteger takes per-tensor zero points only.
      if (c.bZero.length === 1) it(`MatMulInteger ${c.name}`, () => agree(matMulInteger(c), matmulInput(c), threads));
    }
  });
  describe(`DQ → MatMul → Q fused into QLinearMatMul, ${threads} thread(s), bit-exact with ONNX Runtime`, () => {
    for (const c of matmulCases) {
      it(c.name, async () => {
        const model = qdqMatMul(c);
        const file = path.join(dir, `qdqmm_${c.name.replace(/\W+/g, '_')}.onnx`);
        writeFileSync(file, model);
        const session = CpuSession.load(file, { intraOpThreads: threads });
        try {
          expect(session.info().optimizedOperators).toEqual({ QLinearMatMul: 1 });
        } finally {
          session.close();
        }
        await agree(model, matmulInput(c), threads);
      });
    }
  });
}
