/**
 * The element-wise chain fusions (native/src/cpu/elementwise_fusion.cc): every operand order
 * exporters emit for GELU (erf form) and for the attention softmax (scale, additive mask,
 * Softmax) is fused into one step, chains whose intermediates are read elsewhere are left alone,
 * and in every case the result agrees with ONNX Runtime running the unfused graph.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-fusion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let saved = 0;
async function expectFusedAgreement(g: OnnxGraphBuilder, inputs: CpuTensor[], expected: Record<string, number | undefined>): Promise<void> {
  const model = path.join(dir, `m${saved++}.onnx`);
  writeFileSync(model, g.encode());
  const session = CpuSession.load(model, { intraOpThreads: 2 });
  try {
    const ops = session.info().optimizedOperators;
    for (const [op, count] of Object.entries(expected)) expect(ops[op], op).toBe(count);
    const outputs = await session.run(inputs);
    const reference = await runOrt(model, inputs);
    for (const out of outputs) {
      expect(out.dims).toEqual(reference[out.name].dims.map(Number));
      expect(maxRelativeError(out.data as Float32Array, reference[out.name].data as Float32Array)).toBeLessThan(1e-4);
    }
  } finally {
    session.close();
  }
}

function floatInput(name: string, dims: number[], seed: number, scale = 3): CpuTensor {
  return { name, datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed, scale) };
}

/** BatchNormalization's four per-channel constants: scale, bias, mean and a positive variance. */
function batchNormParams(g: OnnxGraphBuilder, channels: number): void {
  g.initializer('scale', 'FLOAT', [channels], randomValues(channels, 31, 1.5));
  g.initializer('bias', 'FLOAT', [channels], randomValues(channels, 32, 1));
  g.initializer('mean', 'FLOAT', [channels], randomValues(channels, 33, 1));
  g.initializer('var', 'FLOAT', [channels], Array.from(randomValues(channels, 34, 1), (v) => Math.abs(v) + 0.1));
}

function scalars(g: OnnxGraphBuilder): void {
  g.initializer('sqrt2', 'FLOAT', [], [Math.SQRT2]);
  g.initializer('inv_sqrt2', 'FLOAT', [], [Math.SQRT1_2]);
  g.initializer('one', 'FLOAT', [], [1]);
  g.initializer('half', 'FLOAT', [], [0.5]);
}

describe('GELU chain fusion', () => {
  const dims = [3, 37]; // 111 elements: vector body plus a masked tail
  const orders: Array<[string, (g: OnnxGraphBuilder) => void]> = [
    ['x · (1 + erf(x / √2)) · ½', (g) => {
      g.node('Div', ['x', 'sqrt2'], ['a']).node('Erf', ['a'], ['b']).node('Add', ['b', 'one'], ['c'])
        .node('Mul', ['x', 'c'], ['d']).node('Mul', ['d', 'half'], ['y']);
    }],
    ['(x · ½) · (1 + erf(x · 1/√2))', (g) => {
      g.node('Mul', ['inv_sqrt2', 'x'], ['a']).node('Erf', ['a'], ['b']).node('Add', ['one', 'b'], ['c'])
        .node('Mul', ['x', 'half'], ['h']).node('Mul', ['h', 'c'], ['y']);
    }],
    ['((1 + erf(x / √2)) · ½) · x', (g) => {
      g.node('Div', ['x', 'sqrt2'], ['a']).node('Erf', ['a'], ['b']).node('Add', ['b', 'one'], ['c'])
        .node('Mul', ['c', 'half'], ['d']).node('Mul', ['x', 'd'], ['y']);
    }],
  ];
  it.each(orders)('fuses %s into one Gelu', async (_, build) => {
    const g = new OnnxGraphBuilder('gelu', 17).input('x', 'FLOAT', dims);
    scalars(g);
    build(g);
    g.output('y', 'FLOAT', dims);
    await expectFusedAgreement(g, [floatInput('x', dims, 1)], { Gelu: 1, Erf: undefined, Mul: undefined, Add: undefined });
  });

  it('leaves the chain alone when an intermediate is also a graph output', async () => {
    const g = new OnnxGraphBuilder('gelu', 17).input('x', 'FLOAT', dims);
    scalars(g);
    orders[0][1](g);
    g.output('y', 'FLOAT', dims).output('b', 'FLOAT', dims);
    await expectFusedAgreement(g, [floatInput('x', dims, 2)], { Gelu: undefined, Erf: 1 });
  });

  it('does not fuse a constant that is not ½ into the GELU', async () => {
    const g = new OnnxGraphBuilder('gelu', 17).input('x', 'FLOAT', dims);
    scalars(g);
    g.initializer('third', 'FLOAT', [], [1 / 3]);
    g.node('Div', ['x', 'sqrt2'], ['a']).node('Erf', ['a'], ['b']).node('Add', ['b', 'one'], ['c'])
      .node('Mul', ['x', 'c'], ['d']).node('Mul', ['d', 'third'], ['y']);
    g.output('y', 'FLOAT', dims);
    await expectFusedAgreement(g, [floatInput('x', dims, 3)], { Gelu: undefined, Erf: 1 });
  });
});

describe('attention softmax fusion', () => {
  const scores = [2, 3, 5, 13]; // batch, heads, queries, keys (13: vector body plus a masked tail)
  const cases: Array<[string, number[], (g: OnnxGraphBuilder) => void, Record<string, number | undefined>]> = [
    ['Mul(scale) + Add(mask [b,1,1,k])', [2, 1, 1, 13], (g) => {
      g.node('Mul', ['s', 'scale'], ['a']).node('Add', ['a', 'mask'], ['b']).node('Softmax', ['b'], ['y'], { axis: -1 });
    }, { Softmax: 1, Mul: undefined, Add: undefined }],
    ['Div(scale) + Add(mask first)', [2, 1, 5, 13], (g) => {
      g.node('Div', ['s', 'scale'], ['a']).node('Add', ['mask', 'a'], ['b']).node('Softmax', ['b'], ['y'], { axis: -1 });
    }, { Softmax: 1, Div: undefined, Add: undefined }],
    ['a mask broadcast along the softmax axis', [2, 3, 5, 1], (g) => {
      g.node('Mul', ['scale', 's'], ['a']).node('Add', ['a', 'mask'], ['b']).node('Softmax', ['b'], ['y'], { axis: -1 });
    }, { Softmax: 1, Mul: undefined, Add: undefined }],
    ['Add alone', [1, 1, 5, 13], (g) => {
      g.node('Add', ['s', 'mask'], ['b']).node('Softmax', ['b'], ['y'], { axis: -1 });
    }, { Softmax: 1, Add: undefined }],
    ['a mask larger than the scores (the Add broadcasts the scores)', [2, 3, 5, 13], (g) => {
      g.node('Mul', ['s', 'scale'], ['a']).node('Add', ['a', 'mask'], ['b']).node('Softmax', ['b'], ['y'], { axis: -1 });
    }, { Softmax: 1, Mul: undefined, Add: undefined }],
  ];
  it.each(cases)('fuses %s', async (name, maskDims, build, expected) => {
    const scoreDims = name.startsWith('a mask larger') ? [2, 1, 5, 13] : scores;
    const g = new OnnxGraphBuilder('attention', 17).input('s', 'FLOAT', scoreDims).input('mask', 'FLOAT', maskDims);
    g.initializer('scale', 'FLOAT', [], [0.125]);
    build(g);
    g.output('y', 'FLOAT');
    const mask = floatInput('mask', maskDims, 5, 4);
    (mask.data as Float32Array).forEach((v, i, a) => { a[i] = v > 2 ? -10000 : v; });
    await expectFusedAgreement(g, [floatInput('s', scoreDims, 4, 20), mask], expected);
  });

  it('keeps Softmax over another axis unfused', async () => {
    const g = new OnnxGraphBuilder('attention', 17).input('s', 'FLOAT', scores).input('mask', 'FLOAT', [2, 1, 1, 13]);
    g.initializer('scale', 'FLOAT', [], [0.125]);
    g.node('Mul', ['s', 'scale'], ['a']).node('Add', ['a', 'mask'], ['b']).node('Softmax', ['b'], ['y'], { axis: 2 });
    g.output('y', 'FLOAT');
    await expectFusedAgreement(g, [floatInput('s', scores, 6, 20), floatInput('mask', [2, 1, 1, 13], 7)], { Mul: 1, Add: 1, Softmax: 1 });
  });
});

// An activation after an arithmetic step (ResNet's residual Add → Relu) runs inside that step,
// over each run of outputs, instead of as a pass of its own (native/src/cpu/fusion.cc).
describe('activation fused into the arithmetic step before it', () => {
  const cases: Array<[string, number[], number[], (g: OnnxGraphBuilder) => void, Record<string, number | undefined>]> = [
    ['Add → Relu (a residual join)', [2, 8, 5, 5], [2, 8, 5, 5], (g) => {
      g.node('Add', ['a', 'b'], ['s']).node('Relu', ['s'], ['y']);
    }, { Add: 1, Relu: undefined }],
    ['Add with a broadcast operand → Relu', [2, 3, 37], [37], (g) => {
      g.node('Add', ['a', 'b'], ['s']).node('Relu', ['s'], ['y']);
    }, { Add: 1, Relu: undefined }],
    ['Sub → Clip(0, 6)', [3, 41], [3, 41], (g) => {
      g.initializer('lo', 'FLOAT', [], [0]).initializer('hi', 'FLOAT', [], [6]);
      g.node('Sub', ['a', 'b'], ['s']).node('Clip', ['s', 'lo', 'hi'], ['y']);
    }, { Sub: 1, Clip: undefined }],
    ['Mul → LeakyRelu', [4, 19], [1, 19], (g) => {
      g.node('Mul', ['a', 'b'], ['s']).node('LeakyRelu', ['s'], ['y'], { alpha: 0.2 });
    }, { Mul: 1, LeakyRelu: undefined }],
    ['Div → Sigmoid', [5, 7], [5, 7], (g) => {
      g.node('Div', ['a', 'b'], ['s']).node('Sigmoid', ['s'], ['y']);
    }, { Div: 1, Sigmoid: undefined }],
    ['Add → HardSwish', [2, 50], [2, 50], (g) => {
      g.node('Add', ['a', 'b'], ['s']).node('HardSwish', ['s'], ['y']);
    }, { Add: 1, HardSwish: undefined }],
    // SiLU, x · Sigmoid(x), in both operand orders; not fused where x or the Sigmoid is read again.
    ['Add → SiLU (Mul(s, Sigmoid(s)))', [2, 3, 37], [37], (g) => {
      g.node('Add', ['a', 'b'], ['s']).node('Sigmoid', ['s'], ['g']).node('Mul', ['s', 'g'], ['y']);
    }, { Add: 1, Sigmoid: undefined, Mul: undefined }],
    ['Mul → SiLU (Mul(Sigmoid(s), s))', [4, 19], [4, 19], (g) => {
      g.node('Mul', ['a', 'b'], ['s']).node('Sigmoid', ['s'], ['g']).node('Mul', ['g', 's'], ['y']);
    }, { Mul: 1, Sigmoid: undefined }],
    ['SiLU whose input is read again: not fused', [2, 9], [2, 9], (g) => {
      g.node('Add', ['a', 'b'], ['s']).node('Sigmoid', ['s'], ['g']).node('Mul', ['s', 'g'], ['m']).node('Sub', ['m', 's'], ['y']);
    }, { Add: 1, Sigmoid: 1, Mul: 1, Sub: 1 }],
    ['SiLU whose Sigmoid is read again: not fused', [2, 9], [2, 9], (g) => {
      g.node('Add', ['a', 'b'], ['s']).node('Sigmoid', ['s'], ['g']).node('Mul', ['s', 'g'], ['m']).node('Sub', ['m', 'g'], ['y']);
    }, { Add: 1, Sigmoid: 1, Mul: 1, Sub: 1 }],
    ['Add read again after the Relu: not fused', [2, 9], [2, 9], (g) => {
      g.node('Add', ['a', 'b'], ['s']).node('Relu', ['s'], ['r']).node('Mul', ['s', 'r'], ['y']);
    }, { Add: 1, Relu: 1 }],
    // BatchNormalization after a join (DenseNet's Concat, a pre-activation ResNet's Add), where it
    // cannot fold into a Conv, applies the activation to each plane it normalises.
    ['Concat → BatchNormalization → Relu (a DenseNet layer)', [2, 8, 5, 7], [2, 8, 5, 7], (g) => {
      batchNormParams(g, 16);
      g.node('Concat', ['a', 'b'], ['c'], { axis: 1 }).node('BatchNormalization', ['c', 'scale', 'bias', 'mean', 'var'], ['n']);
      g.node('Relu', ['n'], ['y']);
    }, { BatchNormalization: 1, Relu: undefined }],
    ['Add → BatchNormalization → Clip(0, 6)', [1, 6, 9, 9], [1, 6, 9, 9], (g) => {
      batchNormParams(g, 6);
      g.initializer('lo', 'FLOAT', [], [0]).initializer('hi', 'FLOAT', [], [6]);
      g.node('Add', ['a', 'b'], ['s']).node('BatchNormalization', ['s', 'scale', 'bias', 'mean', 'var'], ['n']);
      g.node('Clip', ['n', 'lo', 'hi'], ['y']);
    }, { Add: 1, BatchNormalization: 1, Clip: undefined }],
    ['BatchNormalization → LeakyRelu over a 1-D map', [2, 4, 33], [2, 4, 33], (g) => {
      batchNormParams(g, 4);
      g.node('Mul', ['a', 'b'], ['m']).node('BatchNormalization', ['m', 'scale', 'bias', 'mean', 'var'], ['n']);
      g.node('LeakyRelu', ['n'], ['y'], { alpha: 0.1 });
    }, { BatchNormalization: 1, LeakyRelu: undefined }],
    ['BatchNormalization read again after the Relu: not fused', [1, 3, 4, 4], [1, 3, 4, 4], (g) => {
      batchNormParams(g, 3);
      g.node('Sub', ['a', 'b'], ['s']).node('BatchNormalization', ['s', 'scale', 'bias', 'mean', 'var'], ['n']);
      g.node('Relu', ['n'], ['r']).node('Add', ['n', 'r'], ['y']);
    }, { BatchNormalization: 1, Relu: 1 }],
    ['BatchNormalization → SiLU: not fused (no SiLU after a normalisation)', [1, 3, 4, 4], [1, 3, 4, 4], (g) => {
      batchNormParams(g, 3);
      g.node('Div', ['a', 'b'], ['s']).node('BatchNormalization', ['s', 'scale', 'bias', 'mean', 'var'], ['n']);
      g.node('Sigmoid', ['n'], ['g']).node('Mul', ['n', 'g'], ['y']);
    }, { BatchNormalization: 1, Sigmoid: 1, Mul: 1 }],
  ];
  it.each(cases)('%s', async (_name, aDims, bDims, build, expected) => {
    const g = new OnnxGraphBuilder('act', 17).input('a', 'FLOAT', aDims).input('b', 'FLOAT', bDims);
    build(g);
    g.output('y', 'FLOAT');
    const b = floatInput('b', bDims, 9);
    // Div by values near zero would only test rounding.
    if (_name.startsWith('Div')) (b.data as Float32Array).forEach((v, i, arr) => { arr[i] = v >= 0 ? v + 0.5 : v - 0.5; });
    await expectFusedAgreement(g, [floatInput('a', aDims, 8), b], expected);
  });

  it('a fused SiLU gives the same bits as its Sigmoid and Mul run as steps', async () => {
    // Two copies of one sum: the first's SiLU fuses into its Add; the second's Sigmoid is also a
    // graph output, so its Sigmoid and Mul run as they are. 1000 elements: vector steps and a tail.
    const dims = [8, 125];
    const g = new OnnxGraphBuilder('silu_bits', 17).input('a', 'FLOAT', dims).input('b', 'FLOAT', dims);
    g.node('Add', ['a', 'b'], ['s1']).node('Sigmoid', ['s1'], ['g1']).node('Mul', ['s1', 'g1'], ['fused']);
    g.node('Add', ['a', 'b'], ['s2']).node('Sigmoid', ['s2'], ['g2']).node('Mul', ['s2', 'g2'], ['steps']);
    g.output('fused', 'FLOAT').output('steps', 'FLOAT').output('g2', 'FLOAT');
    const model = path.join(dir, `m${saved++}.onnx`);
    writeFileSync(model, g.encode());
    const session = CpuSession.load(model, { intraOpThreads: 1 });
    try {
      expect(session.info().optimizedOperators).toMatchObject({ Add: 2, Sigmoid: 1, Mul: 1 });
      const a = floatInput('a', dims, 12, 12);
      (a.data as Float32Array).set([NaN, Infinity, -Infinity, -0, 100, -100, 1e-40]);
      const [fused, steps] = await session.run([a, floatInput('b', dims, 13, 1)]);
      expect(Array.from(fused!.data as Float32Array)).toEqual(Array.from(steps!.data as Float32Array));
    } finally {
      session.close();
    }
  });

  it('Add → Relu on INT32 tensors (Relu takes integers since opset 14)', async () => {
    const g = new OnnxGraphBuilder('act', 14).input('a', 'INT32', [3, 11]).input('b', 'INT32', [11]);
    g.node('Add', ['a', 'b'], ['s']).node('Relu', ['s'], ['y']);
    g.output('y', 'INT32');
    const model = path.join(dir, `m${saved++}.onnx`);
    writeFileSync(model, g.encode());
    const a = Int32Array.from(randomValues(33, 10, 50), Math.round), b = Int32Array.from(randomValues(11, 11, 50), Math.round);
    const inputs: CpuTensor[] = [{ name: 'a', datatype: 'INT32', dims: [3, 11], data: a }, { name: 'b', datatype: 'INT32', dims: [11], data: b }];
    const session = CpuSession.load(model, { intraOpThreads: 1 });
    try {
      expect(session.info().optimizedOperators.Relu).toBeUndefined();
      const out = (await session.run(inputs))[0].data as Int32Array;
      expect(Array.from(out)).toEqual(Array.from(a, (v, i) => Math.max(0, v + b[i % 11])));
      expect(out.some((v) => v === 0) && out.some((v) => v > 0)).toBe(true);
    } finally {
      session.close();
    }
  });
});
