/**
 * Conv (+ Relu/Clip) followed by a 2×2 stride-2 MaxPool (native/src/cpu/fusion.cc,
 * FuseConvMaxPool): the Conv absorbs the pool. On the small-plane path it pools the product while
 * it is channels last (conv_small_plane.cc); on every other path it writes the whole output and
 * runs the MaxPool's own kernel over it. Either way the result must be bit for bit what the
 * unfused Conv then MaxPool give (the same model with the Conv's output also a graph output,
 * which the fusion leaves alone), and agree with ONNX Runtime. Pools the fusion must not take
 * (other windows, Indices, padding, a Conv output read twice, a LeakyRelu between) stay apart.
 * test/core/executor/cpu/isa-*.test.ts run it again on every other ISA the CPU runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { bitDifferences, outputOf, seedOf } from '../../../helpers/fusion-check.js';
import { type AttributeValue, OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-conv-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface PoolCase {
  name: string;
  input: number[];  // N, C, H, W
  out: number;
  kernel?: number[];  // 3×3 unless given
  pads?: number[];
  strides?: number[];
  group?: number;
  activation?: 'Relu' | 'Clip' | 'LeakyRelu';
  pool?: Record<string, AttributeValue>;  // MaxPool attributes; 2×2 stride 2 unless given
  indices?: boolean;               // the MaxPool's Indices output too
}

let seed = 900;
let saved = 0;
/**
 * Conv → [activation] → MaxPool → output; with `exposeConv`, the Conv's output is a graph output
 * too. The weights come from the case's name, so both forms of one case hold the same ones.
 */
function poolModel(c: PoolCase, exposeConv = false): string {
  const weightSeed = seedOf(c.name);
  const g = new OnnxGraphBuilder('conv_pool', 13);
  g.input('input', 'FLOAT', ['batch', c.input[1], 'h', 'w']);
  const kernel = c.kernel ?? [3, 3];
  const wdims = [c.out, c.input[1] / (c.group ?? 1), ...kernel];
  g.initializer('w', 'FLOAT', wdims, randomValues(wdims.reduce((a, b) => a * b, 1), weightSeed, 0.3));
  g.initializer('b', 'FLOAT', [c.out], randomValues(c.out, weightSeed + 1, 0.5));
  g.node('Conv', ['input', 'w', 'b'], ['conv_out'], { kernel_shape: kernel, pads: c.pads ?? [0, 0, 0, 0], strides: c.strides ?? [1, 1], group: c.group ?? 1 }, 'conv');
  let pooled = 'conv_out';
  if (c.activation === 'Relu') g.node('Relu', ['conv_out'], (pooled = 'act', ['act']), {}, 'relu');
  if (c.activation === 'LeakyRelu') g.node('LeakyRelu', ['conv_out'], (pooled = 'act', ['act']), { alpha: 0.1 }, 'leaky');
  if (c.activation === 'Clip') {
    g.initializer('lo', 'FLOAT', [], [0]);
    g.initializer('hi', 'FLOAT', [], [1.5]);
    g.node('Clip', ['conv_out', 'lo', 'hi'], (pooled = 'act', ['act']), {}, 'clip');
  }
  g.node('MaxPool', [pooled], c.indices ? ['output', 'indices'] : ['output'], c.pool ?? { kernel_shape: [2, 2], strides: [2, 2] }, 'pool');
  g.output('output', 'FLOAT', undefined);
  if (c.indices) g.output('indices', 'INT64', undefined);
  if (exposeConv) g.output(pooled, 'FLOAT', undefined);
  const file = path.join(dir, `m${saved++}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

function input(c: PoolCase, batch: number): CpuTensor {
  const dims = [batch, ...c.input.slice(1)];
  return { name: 'input', datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed++, 1) };
}

const fused: PoolCase[] = [
  // Small output planes (conv_small_plane.h): pooled channels last, before the write-back.
  { name: 'MNIST conv2: 32 -> 64 on 26x26 + Relu', input: [1, 32, 26, 26], out: 64, activation: 'Relu' },
  { name: 'odd plane 13x13 (last row and column dropped), 40 channels + Clip', input: [1, 24, 15, 15], out: 40, activation: 'Clip' },
  { name: 'bias only, 7x9 plane, pads 1, 36 channels', input: [1, 20, 7, 9], out: 36, pads: [1, 1, 1, 1] },
  { name: 'pads 1 on 28x28, 16 -> 48 + Relu, pool auto_pad VALID', input: [1, 16, 28, 28], out: 48, pads: [1, 1, 1, 1], activation: 'Relu',
    pool: { kernel_shape: [2, 2], strides: [2, 2], auto_pad: 'VALID' } },
  { name: 'grouped small plane + Relu', input: [1, 16, 10, 10], out: 64, group: 2, activation: 'Relu' },
  // Paths that cannot pool their product: the whole output, then the MaxPool kernel.
  { name: 'large plane 60x60 (past the small-plane limit) + Relu', input: [1, 8, 62, 62], out: 24, activation: 'Relu' },
  { name: 'few output channels (not the small-plane path)', input: [1, 6, 20, 20], out: 8, activation: 'Relu' },
  { name: 'depthwise + Clip', input: [1, 12, 17, 17], out: 12, group: 12, pads: [1, 1, 1, 1], activation: 'Clip' },
  { name: 'pointwise 1x1, stride 2', input: [1, 20, 21, 21], out: 40, kernel: [1, 1], strides: [2, 2] },
];

describe('Conv + MaxPool 2x2 fusion', () => {
  for (const c of fused) {
    it.each([[1, 1], [1, 2], [3, 2], [4, 2]])(`${c.name} (batch %i, threads %i)`, async (batch, threads) => {
      const x = input(c, batch);
      const model = poolModel(c);
      const pooled = await outputOf(model, [x], threads);
      expect(pooled.ops.MaxPool, 'the MaxPool is absorbed').toBeUndefined();
      const apart = await outputOf(poolModel(c, true), [x], threads);
      expect(apart.ops.MaxPool, 'a Conv output that is a graph output keeps its MaxPool').toBe(1);
      expect(pooled.out.dims).toEqual(apart.out.dims);
      expect(bitDifferences(pooled.out, apart.out)).toEqual({ count: 0, first: -1 });
      const ref = (await runOrt(model, [x])).output;
      expect(pooled.out.dims).toEqual(ref.dims.map(Number));
      expect(maxRelativeError(pooled.out.data as Float32Array, ref.data as Float32Array)).toBeLessThan(1e-3);
    });
  }

  // A NaN from the input reaches the pooled outputs as the unfused pool takes it (skipped by the
  // maximum unless all four are NaN; Relu turns it into 0 first).
  it.each(['Relu', 'Clip', undefined] as const)('NaN inputs through the pooled path (activation %s)', async (activation) => {
    const c: PoolCase = { name: 'nan', input: [1, 32, 12, 12], out: 48, activation };
    const x = input(c, 2);
    const data = x.data as Float32Array;
    for (let i = 3; i < data.length; i += 97) data[i] = Number.NaN;
    const pooled = await outputOf(poolModel(c), [x], 1);
    const apart = await outputOf(poolModel(c, true), [x], 1);
    expect(pooled.ops.MaxPool).toBeUndefined();
    expect(bitDifferences(pooled.out, apart.out)).toEqual({ count: 0, first: -1 });
  });

  it('one session whose plane size moves between the pooled and the unpooled path', async () => {
    const c: PoolCase = { name: 'switch', input: [1, 16, 0, 0], out: 32, activation: 'Relu' };
    const model = poolModel(c), reference = poolModel(c, true);
    const session = CpuSession.load(model, { intraOpThreads: 2 });
    try {
      for (const size of [14, 70, 14, 9]) {
        const x = input({ ...c, input: [1, 16, size, size] }, 2);
        const out = (await session.run([x])).find((o) => o.name === 'output')!;
        const apart = await outputOf(reference, [x], 2);
        expect(bitDifferences(out, apart.out), `${size}x${size}`).toEqual({ count: 0, first: -1 });
      }
    } finally {
      session.close();
    }
  });

  it('a pool that does not fit the Conv output fails naming the MaxPool', async () => {
    const c: PoolCase = { name: 'tiny', input: [1, 16, 3, 3], out: 32, activation: 'Relu' };
    const session = CpuSession.load(poolModel(c), { intraOpThreads: 1 });
    try {
      // The 3×3 conv leaves a 1×1 plane, smaller than the 2×2 window.
      await expect(session.run([input(c, 1)])).rejects.toThrow(/node 'pool' \(MaxPool\).*smaller than the kernel extent 2/);
    } finally {
      session.close();
    }
  });
});

const apart: PoolCase[] = [
  { name: '3x3 window, stride 2', input: [1, 16, 15, 15], out: 32, activation: 'Relu', pool: { kernel_shape: [3, 3], strides: [2, 2] } },
  { name: '2x2 window, stride 1', input: [1, 16, 12, 12], out: 32, activation: 'Relu', pool: { kernel_shape: [2, 2], strides: [1, 1] } },
  { name: '2x2 window, padded', input: [1, 16, 12, 12], out: 32, activation: 'Relu', pool: { kernel_shape: [2, 2], strides: [2, 2], pads: [1, 1, 0, 0] } },
  { name: '2x2 window, ceil_mode', input: [1, 16, 13, 13], out: 32, activation: 'Relu', pool: { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 } },
  { name: 'with Indices', input: [1, 16, 12, 12], out: 32, activation: 'Relu', indices: true },
  { name: 'LeakyRelu between', input: [1, 16, 12, 12], out: 32, activation: 'LeakyRelu' },
];

describe('MaxPools the Conv does not absorb', () => {
  for (const c of apart) {
    it(c.name, async () => {
      const model = poolModel(c);
      const x = input(c, 2);
      const result = await outputOf(model, [x], 2);
      expect(result.ops.MaxPool).toBe(1);
      const ref = (await runOrt(model, [x])).output;
      expect(result.out.dims).toEqual(ref.dims.map(Number));
      expect(maxRelativeError(result.out.data as Float32Array, ref.data as Float32Array)).toBeLessThan(1e-3);
    });
  }

  it('a Conv output read by a second node', async () => {
    const g = new OnnxGraphBuilder('conv_pool_shared', 13);
    g.input('input', 'FLOAT', [1, 16, 12, 12]);
    g.initializer('w', 'FLOAT', [32, 16, 3, 3], randomValues(32 * 16 * 9, seed++, 0.3));
    g.node('Conv', ['input', 'w'], ['y'], { kernel_shape: [3, 3] }, 'conv');
    g.node('MaxPool', ['y'], ['output'], { kernel_shape: [2, 2], strides: [2, 2] }, 'pool');
    g.node('ReduceSum', ['y'], ['total'], { keepdims: 0 }, 'sum');
    g.output('output', 'FLOAT', undefined);
    g.output('total', 'FLOAT', undefined);
    const model = path.join(dir, 'shared.onnx');
    writeFileSync(model, g.encode());
    const x: CpuTensor = { name: 'input', datatype: 'FP32', dims: [1, 16, 12, 12], data: randomValues(16 * 144, seed++, 1) };
    const result = await outputOf(model, [x], 1);
    expect(result.ops.MaxPool).toBe(1);
    const ref = (await runOrt(model, [x])).output;
    expect(maxRelativeError(result.out.data as Float32Array, ref.data as Float32Array)).toBeLessThan(1e-3);
  });
});
