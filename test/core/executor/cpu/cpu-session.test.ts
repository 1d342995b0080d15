import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, cpuSupportedOperators, inspectOnnxModel } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { fixtureModelPath } from '../../../helpers/onnx-fixtures.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';

const mnist = fixtureModelPath('mnist-cnn.onnx');

describe('CpuSession on the MNIST CNN fixture', () => {
  const session = CpuSession.load(mnist, { intraOpThreads: 1 });
  afterAll(() => session.close());

  it('introspects inputs, outputs with dim names, opset and operators', () => {
    const info = session.info();
    expect(info.opset).toBe(13);
    expect(info.inputs).toEqual([{ name: 'input', datatype: 'FP32', dims: [-1, 1, 28, 28], dimNames: ['batch', '', '', ''] }]);
    expect(info.outputs[0]).toMatchObject({ name: 'probabilities', datatype: 'FP32', dims: [-1, 10] });
    expect(info.operators).toMatchObject({ Conv: 2, Relu: 3, MaxPool: 1, Gemm: 2, Shape: 1, Reshape: 1, Softmax: 1 });
    expect(info.unsupportedOperators).toEqual({});
    expect(cpuSupportedOperators()).toEqual(expect.arrayContaining(Object.keys(info.operators)));
  });

  it('fuses Conv+Relu(+MaxPool) and Gemm+Relu, folds the Shape→Gather→Unsqueeze→Concat chain and aliases the Reshape', () => {
    const info = session.info();
    expect(info.optimizedOperators).toEqual({ Conv: 2, Shape: 1, Gather: 1, Unsqueeze: 1, Concat: 1, Reshape: 1, Gemm: 2, Softmax: 1 });
    const report = session.compile({ input: [2, 1, 28, 28] });
    // Shape, Gather, Unsqueeze, Concat fold for a concrete shape; Reshape becomes a view.
    expect(report.steps).toEqual({ run: 5, dynamic: 0, folded: 4, aliased: 1 });
  });

  it('compiles a plan per input-shape signature and caches it', () => {
    const first = session.compile({ input: [3, 1, 28, 28] });
    expect(first.cached).toBe(false);
    expect(first.arenaBytes).toBeGreaterThan(0);
    expect(first.compileMs).toBeGreaterThanOrEqual(0);
    expect(session.compile({ input: [3, 1, 28, 28] })).toMatchObject({ cached: true, compileMs: 0, arenaBytes: first.arenaBytes });
  });

  it('agrees with ONNX Runtime at batch 1 and 4', async () => {
    for (const batch of [1, 4]) {
      const input = { name: 'input', datatype: 'FP32' as const, dims: [batch, 1, 28, 28], data: randomValues(batch * 784, batch, 1) };
      const [out] = await session.run([input]);
      const ref = await runOrt(mnist, [input]);
      expect(out.dims).toEqual([batch, 10]);
      expect(maxRelativeError(out.data as Float32Array, ref.probabilities.data as Float32Array)).toBeLessThan(1e-4);
    }
  });

  it('runs concurrent calls on one session one at a time, each with its own result', async () => {
    const inputs = [1, 2, 3].map((b) => ({ name: 'input', datatype: 'FP32' as const, dims: [b, 1, 28, 28], data: randomValues(b * 784, 10 + b, 1) }));
    const results = await Promise.all(inputs.map((i) => session.run([i])));
    results.forEach((r, i) => expect(r[0].dims).toEqual([i + 1, 10]));
  });

  it('runSync returns exactly what run returns, and the same engine errors', async () => {
    const input = { name: 'input', datatype: 'FP32' as const, dims: [2, 1, 28, 28], data: randomValues(2 * 784, 7, 1) };
    const [sync] = session.runSync([input]);
    const [async] = await session.run([input]);
    expect(sync.dims).toEqual([2, 10]);
    expect(Array.from(sync.data as Float32Array)).toEqual(Array.from(async.data as Float32Array));
    const wrongRank = { ...input, dims: [2, 784], data: input.data };
    const asyncError = await session.run([wrongRank]).catch((e: Error) => e.message);
    expect(() => session.runSync([wrongRank])).toThrow(asyncError as string);
    expect(asyncError).toContain('input');
  });

  it('inspects a model without loading it', () => {
    expect(inspectOnnxModel(mnist).operators.Conv).toBe(2);
  });
});

describe('CpuSession argument validation', () => {
  it('rejects bad arguments before the native call', async () => {
    expect(() => CpuSession.load('', {})).toThrow('Expected a model file path for path but received the string ""');
    expect(() => CpuSession.load(mnist, { intraOpThreads: -1 })).toThrow('Expected an integer from 0 to 1024 for options.intraOpThreads but received number -1');
    const session = CpuSession.load(mnist, { intraOpThreads: 1 });
    await expect(session.run([{ name: 'input', datatype: 'FP32', dims: [1, 1, 28, 28], data: new Float32Array(3) }])).rejects.toThrow(
      'Expected 784 elements (dims [1, 1, 28, 28]) for inputs[0].data (input) but received a Float32Array of length 3',
    );
    await expect(session.run([{ name: 'input', datatype: 'INT64', dims: [1], data: new Float32Array(1) as never }])).rejects.toThrow(
      'Expected a BigInt64Array for inputs[0].data (input)',
    );
    expect(() => session.compile({ input: [1.5] })).toThrow('Expected an array of non-negative integers for shapes.input');
    expect(() => session.runSync([{ name: 'input', datatype: 'FP32', dims: [1, 1, 28, 28], data: new Float32Array(3) }])).toThrow(
      'Expected 784 elements (dims [1, 1, 28, 28]) for inputs[0].data (input) but received a Float32Array of length 3',
    );
    session.close();
    expect(() => session.info()).toThrow('the session is closed');
    expect(() => session.runSync([])).toThrow('the session is closed');
  });
});

describe('CpuSession plans', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-plan-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('folds a shape computation through an empty value (a Slice of a shape past its end), as torch attention exports have', async () => {
    // Reshape(x, Concat(Shape(x)[0:1], [2], Shape(x)[2:])) with x of rank 2: the last Slice is empty.
    const model = new OnnxGraphBuilder('empty_slice', 17)
      .input('x', 'FLOAT', [4, 6])
      .initializer('s0', 'INT64', [1], [0]).initializer('s1', 'INT64', [1], [1]).initializer('s2', 'INT64', [1], [2])
      .initializer('end', 'INT64', [1], [9]).initializer('two', 'INT64', [1], [2]).initializer('minus1', 'INT64', [1], [-1])
      .node('Shape', ['x'], ['shape'])
      .node('Slice', ['shape', 's0', 's1'], ['head'])
      .node('Slice', ['shape', 's2', 'end'], ['tail'])
      .node('Concat', ['head', 'two', 'minus1', 'tail'], ['new_shape'], { axis: 0 })
      .node('Reshape', ['x', 'new_shape'], ['r'])
      .node('Relu', ['r'], ['y'])
      .output('y', 'FLOAT').encode();
    const file = path.join(dir, 'empty-slice.onnx');
    writeFileSync(file, model);
    const session = CpuSession.load(file, { intraOpThreads: 1 });
    try {
      // Shape, both Slices and Concat fold; Reshape is a view of x, so Relu is the one step that runs.
      expect(session.compile({ x: [4, 6] }).steps).toEqual({ run: 2, dynamic: 0, folded: 4, aliased: 0 });
      const x = randomValues(24, 3, 1);
      const [out] = session.runSync([{ name: 'x', datatype: 'FP32', dims: [4, 6], data: x }]);
      expect(out.dims).toEqual([4, 2, 3]);
      expect(Array.from(out.data as Float32Array)).toEqual(Array.from(x, (v) => Math.max(v, 0)));
    } finally {
      session.close();
    }
  });
});
