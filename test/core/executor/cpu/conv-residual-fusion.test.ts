/**
 * Conv followed by an Add of another tensor, then maybe an activation (a ResNet block's end;
 * native/src/cpu/fusion.cc, FuseConvResidualAdd): the Conv absorbs the Add and adds the residual
 * in its epilogue, before the activation. Where the residual has another shape (broadcasting) or the
 * Conv's path has no such epilogue (depthwise, weights given at run time), it writes its output and
 * runs the Add's own kernel. Either way the result must be bit for bit the unfused Conv, Add and
 * activation (the same model with the Conv's output also a graph output, which the fusion leaves
 * alone), and agree with ONNX Runtime. test/core/executor/cpu/isa-*.test.ts run it again on every
 * other ISA the CPU runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { bitDifferences, outputOf, seedOf } from '../../../helpers/fusion-check.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-conv-residual-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ResidualCase {
  name: string;
  input: number[];         // N, C, H, W of the Conv's input
  out: number;             // output channels
  kernel?: number[];       // 3×3, pads 1 unless given
  pads?: number[];
  strides?: number[];
  dilations?: number[];
  group?: number;
  residual?: number[];     // the residual's shape without the batch; the Conv output's unless given
  residualFirst?: boolean; // Add(residual, conv) rather than Add(conv, residual)
  laterResidual?: boolean; // the residual computed by a Conv that comes after this one in the graph
  activation?: 'Relu' | 'Sigmoid';
  noBias?: boolean;        // a Conv without a bias input
}

let seed = 1300;
let saved = 0;

/** The output shape of the case's Conv (batch left out). */
function convOut(c: ResidualCase): number[] {
  const k = c.kernel ?? [3, 3], pads = c.pads ?? [1, 1, 1, 1], s = c.strides ?? [1, 1], d = c.dilations ?? [1, 1];
  return [c.out, ...[0, 1].map((i) => Math.floor((c.input[2 + i] + pads[i] + pads[i + 2] - (k[i] - 1) * d[i] - 1) / s[i]) + 1)];
}

/**
 * input → Conv → Add(·, residual) → [activation] → output, the residual an input of its own or
 * (laterResidual) a 1×1 Conv of the input placed after the main Conv. With `exposeConv` the
 * Convs' outputs are graph outputs too. Weights come from the case's name, so both forms match.
 */
function residualModel(c: ResidualCase, exposeConv = false): string {
  const weightSeed = seedOf(c.name);
  const g = new OnnxGraphBuilder('conv_residual', 13);
  g.input('input', 'FLOAT', ['batch', c.input[1], 'h', 'w']);
  const kernel = c.kernel ?? [3, 3];
  const wdims = [c.out, c.input[1] / (c.group ?? 1), ...kernel];
  g.initializer('w', 'FLOAT', wdims, randomValues(wdims.reduce((a, b) => a * b, 1), weightSeed, 0.3));
  if (!c.noBias) g.initializer('b', 'FLOAT', [c.out], randomValues(c.out, weightSeed + 1, 0.5));
  g.node('Conv', c.noBias ? ['input', 'w'] : ['input', 'w', 'b'], ['conv_out'], { kernel_shape: kernel, pads: c.pads ?? [1, 1, 1, 1], strides: c.strides ?? [1, 1], group: c.group ?? 1, ...(c.dilations ? { dilations: c.dilations } : {}) }, 'conv');
  if (c.laterResidual) {
    // The shortcut of a downsampling block: a 1×1 Conv of the same input, exported after the main one.
    g.initializer('wd', 'FLOAT', [c.out, c.input[1], 1, 1], randomValues(c.out * c.input[1], weightSeed + 2, 0.3));
    g.node('Conv', ['input', 'wd'], ['residual'], { kernel_shape: [1, 1], strides: c.strides ?? [1, 1] }, 'shortcut');
  } else {
    g.input('residual', 'FLOAT', c.residual ? c.residual : ['batch', ...convOut(c)]);
  }
  const sum = c.activation ? 'sum' : 'output';
  g.node('Add', c.residualFirst ? ['residual', 'conv_out'] : ['conv_out', 'residual'], [sum], {}, 'add');
  if (c.activation) g.node(c.activation, ['sum'], ['output'], {}, 'act');
  g.output('output', 'FLOAT', undefined);
  if (exposeConv) g.output('conv_out', 'FLOAT', undefined);
  // Otherwise the shortcut Conv would absorb the Add in its place.
  if (exposeConv && c.laterResidual) g.output('residual', 'FLOAT', undefined);
  const file = path.join(dir, `m${saved++}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

function inputs(c: ResidualCase, batch: number): CpuTensor[] {
  const tensor = (name: string, dims: number[]): CpuTensor => ({ name, datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed++, 1) });
  const x = tensor('input', [batch, ...c.input.slice(1)]);
  if (c.laterResidual) return [x];
  return [x, tensor('residual', c.residual ?? [batch, ...convOut(c)])];
}

const cases: ResidualCase[] = [
  // In the epilogue: small planes (the transposed path's write-back), the packed and implicit
  // GEMM paths, a pointwise projection (MobileNetV2), each with and without the activation after.
  { name: 'small plane 7x7, 64 -> 64 + Relu (a ResNet block end)', input: [1, 64, 7, 7], out: 64, activation: 'Relu' },
  { name: 'small plane 14x14, 40 -> 48, residual first', input: [1, 40, 14, 14], out: 48, residualFirst: true },
  { name: 'stride 2 with the shortcut Conv exported after it + Relu', input: [1, 16, 16, 16], out: 32, strides: [2, 2], laterResidual: true, activation: 'Relu' },
  { name: 'large plane 60x60, 8 -> 24 (packed GEMM rows) + Sigmoid', input: [1, 8, 60, 60], out: 24, activation: 'Sigmoid' },
  { name: 'no pads 3x3, 12 -> 16 (implicit im2col)', input: [1, 12, 30, 33], out: 16, pads: [0, 0, 0, 0] },
  { name: 'pointwise 1x1, 32 -> 24 (a MobileNetV2 projection)', input: [1, 32, 20, 20], out: 24, kernel: [1, 1], pads: [0, 0, 0, 0] },
  { name: 'grouped 3x3 + Relu', input: [1, 16, 10, 10], out: 64, group: 2, activation: 'Relu' },
  // Stride 2 with few taps into rows of 30 (conv_strided.h on AVX-512: added before the clamp).
  { name: 'stride 2 direct rows, 4 -> 32 on 39x59 + Relu', input: [1, 4, 39, 59], out: 32, strides: [2, 2], activation: 'Relu' },
  { name: 'stride 2 direct rows, 3 -> 16 without a bias + Sigmoid', input: [1, 3, 20, 64], out: 16, strides: [2, 2], noBias: true, activation: 'Sigmoid' },
  // Where the tiles add the residual in registers (sgemm_avx512.cc): 112 rows end in a 4-row
  // tile, and 529 positions leave tiles of 17 and 1 columns (the half-vector edge) at 1 and 2
  // threads; without a bias the residual is the first thing added.
  { name: 'pointwise 1x1, 24 -> 112 on 23x23 (packed B, ragged tiles) + Relu', input: [1, 24, 23, 23], out: 112, kernel: [1, 1], pads: [0, 0, 0, 0], activation: 'Relu' },
  { name: 'pointwise 1x1 without a bias, 24 -> 112 on 23x23', input: [1, 24, 23, 23], out: 112, kernel: [1, 1], pads: [0, 0, 0, 0], noBias: true },
  { name: 'implicit 3x3 without a bias, 16 -> 20 on 22x29 + Relu', input: [1, 16, 22, 29], out: 20, noBias: true, activation: 'Relu' },
  // Through the Add's own kernel: a residual that broadcasts, and paths without the epilogue.
  { name: 'broadcast residual [48, 1, 1] + Relu', input: [1, 20, 9, 9], out: 48, residual: [48, 1, 1], activation: 'Relu' },
  { name: 'depthwise 3x3 + Relu', input: [1, 12, 15, 15], out: 12, group: 12, activation: 'Relu' },
  { name: 'ASPP rate 12 on 14x14, tap by tap (conv_tap_products.h) + Relu', input: [1, 32, 14, 14], out: 24, pads: [12, 12, 12, 12], dilations: [12, 12], activation: 'Relu' },
  // The Conv's 1×1 output is the one that broadcasts, up to the residual's 4×4.
  { name: 'Conv output [16, 1, 1] broadcast to a [1, 16, 4, 4] residual', input: [1, 8, 3, 3], out: 16, pads: [0, 0, 0, 0], residual: [1, 16, 4, 4] },
];

describe('Conv + residual Add fusion', () => {
  for (const c of cases) {
    it.each([[1, 1], [1, 2], [3, 2], [4, 2]])(`${c.name} (batch %i, threads %i)`, async (batch, threads) => {
      const feeds = inputs(c, batch);
      const model = residualModel(c);
      const fused = await outputOf(model, feeds, threads);
      expect(fused.ops.Add, 'the Add is absorbed').toBeUndefined();
      if (c.activation) expect(fused.ops[c.activation], `the ${c.activation} after it too`).toBeUndefined();
      const apart = await outputOf(residualModel(c, true), feeds, threads);
      expect(apart.ops.Add, 'a Conv output that is a graph output keeps its Add').toBe(1);
      expect(fused.out.dims).toEqual(apart.out.dims);
      expect(bitDifferences(fused.out, apart.out)).toEqual({ count: 0, first: -1 });
      const ref = (await runOrt(model, feeds)).output;
      expect(fused.out.dims).toEqual(ref.dims.map(Number));
      expect(maxRelativeError(fused.out.data as Float32Array, ref.data as Float32Array)).toBeLessThan(1e-3);
    });
  }

  it('one session whose residual moves between the epilogue and the Add kernel', async () => {
    // The residual input is [batch, 32, h, w] or [1, 32, 1, 1] from run to run.
    const c: ResidualCase = { name: 'switching residual', input: [1, 16, 12, 12], out: 32, activation: 'Relu' };
    const g = new OnnxGraphBuilder('conv_residual_switch', 13);
    g.input('input', 'FLOAT', ['batch', 16, 12, 12]);
    g.input('residual', 'FLOAT', ['rb', 32, 'rh', 'rw']);
    g.initializer('w', 'FLOAT', [32, 16, 3, 3], randomValues(32 * 16 * 9, seed++, 0.3));
    g.node('Conv', ['input', 'w'], ['conv_out'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] }, 'conv');
    g.node('Add', ['conv_out', 'residual'], ['sum'], {}, 'add');
    g.node('Relu', ['sum'], ['output'], {}, 'act');
    g.output('output', 'FLOAT', undefined);
    const model = path.join(dir, 'switch.onnx');
    writeFileSync(model, g.encode());
    const session = CpuSession.load(model, { intraOpThreads: 2 });
    try {
      expect(session.info().optimizedOperators.Add).toBeUndefined();
      for (const residual of [[2, 32, 12, 12], [1, 32, 1, 1], [2, 32, 12, 12]]) {
        const feeds = [inputs(c, 2)[0], { name: 'residual', datatype: 'FP32' as const, dims: residual, data: randomValues(residual.reduce((a, b) => a * b, 1), seed++, 1) }];
        const out = (await session.run(feeds))[0];
        const ref = (await runOrt(model, feeds)).output;
        expect(out.dims).toEqual([2, 32, 12, 12]);
        expect(maxRelativeError(out.data as Float32Array, ref.data as Float32Array), residual.join('x')).toBeLessThan(1e-3);
      }
    } finally {
      session.close();
    }
  });

  it('a residual that does not broadcast fails naming the Add', async () => {
    const c: ResidualCase = { name: 'bad residual', input: [1, 16, 8, 8], out: 32, residual: [1, 31, 8, 8] };
    const session = CpuSession.load(residualModel(c), { intraOpThreads: 1 });
    try {
      await expect(session.run(inputs(c, 1))).rejects.toThrow(/node 'add' \(Add\)/);
    } finally {
      session.close();
    }
  });

  it('leaves alone an Add of a Conv output with itself, and one whose Conv output is read elsewhere', async () => {
    const g = new OnnxGraphBuilder('conv_residual_apart', 13);
    g.input('input', 'FLOAT', [1, 16, 8, 8]);
    g.initializer('w', 'FLOAT', [32, 16, 3, 3], randomValues(32 * 16 * 9, seed++, 0.3));
    g.node('Conv', ['input', 'w'], ['a'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] }, 'conv_a');
    g.node('Add', ['a', 'a'], ['twice'], {}, 'twice');
    g.node('Conv', ['input', 'w'], ['b'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] }, 'conv_b');
    g.node('Add', ['b', 'twice'], ['sum'], {}, 'add');
    g.node('Mul', ['b', 'sum'], ['output'], {}, 'reads_b_again');
    g.output('output', 'FLOAT', undefined);
    const model = path.join(dir, 'apart.onnx');
    writeFileSync(model, g.encode());
    const feeds: CpuTensor[] = [{ name: 'input', datatype: 'FP32', dims: [1, 16, 8, 8], data: randomValues(16 * 64, seed++, 1) }];
    const result = await outputOf(model, feeds, 1);
    expect(result.ops.Add).toBe(2);
    const ref = (await runOrt(model, feeds)).output;
    expect(maxRelativeError(result.out.data as Float32Array, ref.data as Float32Array)).toBeLessThan(1e-3);
  });
});
