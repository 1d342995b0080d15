/**
 * Operators that copy or select whole rows (native/src/cpu/ops/data.cc, activation.cc,
 * tensor_ops.cc): Pad in every mode, with negative pads (a crop) and pads on outer dims only,
 * over ranks 1 to 4 and an integer type; Tile on the last dim, outer dims and both; SpaceToDepth
 * and DepthToSpace (DCR, CRD); PRelu against a slope per channel, a slope row and one slope;
 * LeakyRelu. Against ONNX Runtime exactly (they copy values or take one product), plus NaN and
 * signed zeros through the two activations bit for bit.
 * test/core/executor/cpu/isa-*.test.ts run it again on every other ISA.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { bitDifferences } from '../../../helpers/fusion-check.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { runOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let saved = 0;
let seed = 6100;

function save(g: OnnxGraphBuilder): string {
  const file = path.join(dir, `r${saved++}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

async function expectSameAsOrt(model: string, inputs: CpuTensor[], threads: number): Promise<void> {
  const session = CpuSession.load(model, { intraOpThreads: threads });
  try {
    const [out] = await session.run(inputs);
    const ref = (await runOrt(model, inputs)).y;
    expect(out.dims).toEqual(ref.dims.map(Number));
    expect(Array.from(out.data as ArrayLike<number>)).toEqual(Array.from(ref.data as ArrayLike<number>));
  } finally {
    session.close();
  }
}

const floats = (dims: number[]): CpuTensor => ({ name: 'x', datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed++, 2) });

const padCases: { name: string; dims: number[]; pads: number[]; mode: string; int?: boolean }[] = [
  { name: 'reflect 3 on H and W of a map', dims: [1, 3, 9, 11], pads: [0, 0, 3, 3, 0, 0, 3, 3], mode: 'reflect' },
  { name: 'constant, asymmetric', dims: [2, 2, 5, 7], pads: [0, 1, 2, 0, 1, 0, 0, 3], mode: 'constant' },
  { name: 'edge with a crop of the last dim', dims: [1, 2, 6, 10], pads: [0, 0, 2, -3, 0, 0, 1, 2], mode: 'edge' },
  { name: 'wrap', dims: [2, 3, 6], pads: [0, 2, 5, 0, 1, 4], mode: 'wrap' },
  { name: 'constant on outer dims only', dims: [2, 3, 4, 5], pads: [1, 0, 2, 0, 0, 1, 0, 0], mode: 'constant' },
  { name: 'constant, cropping more than the pads add', dims: [4, 9], pads: [-1, 2, 1, -4], mode: 'constant' },
  { name: 'reflect on one dim', dims: [13], pads: [4, 12], mode: 'reflect' },
  { name: 'constant over INT32', dims: [2, 3, 5], pads: [0, 1, 2, 1, 0, 1], mode: 'constant', int: true },
];

describe('row copies vs ONNX Runtime', () => {
  for (const c of padCases) {
    it.each([1, 2])(`Pad ${c.name} (threads %i)`, async (threads) => {
      const g = new OnnxGraphBuilder('pad', 19).input('x', c.int ? 'INT32' : 'FLOAT', c.dims)
        .initializer('pads', 'INT64', [c.pads.length], c.pads);
      if (c.mode === 'constant') g.initializer('value', c.int ? 'INT32' : 'FLOAT', [], [7]);
      g.node('Pad', c.mode === 'constant' ? ['x', 'pads', 'value'] : ['x', 'pads'], ['y'], { mode: c.mode }, 'pad').output('y', c.int ? 'INT32' : 'FLOAT', undefined);
      const count = c.dims.reduce((a, b) => a * b, 1);
      const x: CpuTensor = c.int ? { name: 'x', datatype: 'INT32', dims: c.dims, data: Int32Array.from({ length: count }, (_, i) => i * 37 - 500) } : floats(c.dims);
      await expectSameAsOrt(save(g), [x], threads);
    });
  }

  // Tile builds each output plane's first rows, then copies them as a block per repeat of the
  // second-last dim: repeats on every dim, one of 1 row, a rank-1 input, and 40 planes of 28x28
  // (enough for both threads).
  for (const [dims, repeats] of [[[1, 4, 5, 7], [1, 1, 2, 3]], [[2, 3, 4], [3, 2, 1]], [[6], [4]], [[2, 1, 3], [1, 5, 1]],
    [[2, 3, 5, 4], [2, 2, 3, 2]], [[1, 40, 28, 28], [1, 1, 2, 2]]] as const) {
    it.each([1, 2])(`Tile [${dims.join(', ')}] by [${repeats.join(', ')}] (threads %i)`, async (threads) => {
      const g = new OnnxGraphBuilder('tile', 13).input('x', 'FLOAT', [...dims]).initializer('repeats', 'INT64', [repeats.length], [...repeats])
        .node('Tile', ['x', 'repeats'], ['y'], {}, 'tile').output('y', 'FLOAT', undefined);
      await expectSameAsOrt(save(g), [floats([...dims])], threads);
    });
  }

  // Products are taken 256 at a time (vector_math's LeakyArray): a slope row of 300 crosses that.
  for (const [name, dims, slope] of [['per channel', [2, 5, 7, 9], [5, 1, 1]], ['a row of the last dim', [2, 5, 7, 9], [9]],
    ['one slope', [2, 5, 7, 9], [1]], ['a row of 300', [2, 3, 300], [300]]] as const) {
    it.each([1, 2])(`PRelu with ${name} (threads %i)`, async (threads) => {
      const count = slope.reduce((a: number, b: number) => a * b, 1);
      const g = new OnnxGraphBuilder('prelu', 16).input('x', 'FLOAT', [...dims])
        .initializer('slope', 'FLOAT', [...slope], randomValues(count, seed++, 0.5))
        .node('PRelu', ['x', 'slope'], ['y'], {}, 'prelu').output('y', 'FLOAT', undefined);
      await expectSameAsOrt(save(g), [floats([...dims])], threads);
    });
  }

  for (const [op, dims, blocksize, mode] of [['SpaceToDepth', [2, 3, 6, 10], 2, undefined], ['SpaceToDepth', [1, 2, 9, 6], 3, undefined],
    ['DepthToSpace', [2, 8, 3, 5], 2, 'DCR'], ['DepthToSpace', [1, 18, 2, 3], 3, 'CRD']] as const) {
    it(`${op} [${dims.join(', ')}] in blocks of ${blocksize}${mode ? `, ${mode}` : ''}`, async () => {
      const g = new OnnxGraphBuilder('space_depth', 13).input('x', 'FLOAT', [...dims])
        .node(op, ['x'], ['y'], mode ? { blocksize, mode } : { blocksize }, 'move').output('y', 'FLOAT', undefined);
      await expectSameAsOrt(save(g), [floats([...dims])], 1);
    });
  }

  it.each([1, 2])('LeakyRelu (threads %i)', async (threads) => {
    const g = new OnnxGraphBuilder('leaky', 16).input('x', 'FLOAT', [3, 1000])
      .node('LeakyRelu', ['x'], ['y'], { alpha: 0.1 }, 'leaky').output('y', 'FLOAT', undefined);
    await expectSameAsOrt(save(g), [floats([3, 1000])], threads);
  });
});

describe('LeakyRelu and PRelu on NaN and signed zeros', () => {
  const specials = [NaN, -0, 0, -Infinity, Infinity, -1e-45, 1e-45, -3, 3];
  // x >= 0 ? x : slope · x, value by value in JS, with a negative slope so that which side a
  // zero takes shows: +0 stays +0 (slope · +0 would be -0), -0 stays -0, NaN stays NaN.
  const expected = (x: Float32Array, slope: number) => Float32Array.from(x, (v) => (v >= 0 ? v : Math.fround(v * slope)));
  for (const op of ['LeakyRelu', 'PRelu'] as const) {
    it(op, async () => {
      const x = new Float32Array(64).map((_, i) => specials[i % specials.length]);
      const g = new OnnxGraphBuilder('special', 16).input('x', 'FLOAT', [64]);
      if (op === 'PRelu') g.initializer('slope', 'FLOAT', [1], [-0.25]);
      g.node(op, op === 'PRelu' ? ['x', 'slope'] : ['x'], ['y'], op === 'PRelu' ? {} : { alpha: -0.25 }, 'act').output('y', 'FLOAT', undefined);
      const session = CpuSession.load(save(g), { intraOpThreads: 1 });
      try {
        const [out] = await session.run([{ name: 'x', datatype: 'FP32', dims: [64], data: x }]);
        expect(bitDifferences(out, { ...out, data: expected(x, -0.25) })).toEqual({ count: 0, first: -1 });
      } finally {
        session.close();
      }
    });
  }
});
