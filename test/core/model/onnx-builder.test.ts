import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { OnnxGraphBuilder, randomValues } from '../../helpers/onnx-builder.js';

describe('OnnxGraphBuilder', () => {
  it('encodes a model that ONNX Runtime loads and runs', async () => {
    const w = randomValues(4 * 3, 1);
    const bytes = new OnnxGraphBuilder('affine')
      .input('x', 'FLOAT', ['batch', 4])
      .initializer('w', 'FLOAT', [4, 3], w)
      .initializer('b', 'FLOAT', [3], [1, 2, 3])
      .node('Gemm', ['x', 'w', 'b'], ['y'])
      .output('y', 'FLOAT', ['batch', 3])
      .encode();
    const session = await ort.InferenceSession.create(bytes);
    const x = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0]);
    const { y } = await session.run({ x: new ort.Tensor('float32', x, [2, 4]) });
    expect(y.dims).toEqual([2, 3]);
    const data = y.data as Float32Array;
    expect(data[0]).toBeCloseTo(w[0] + 1, 5);
    expect(data[5]).toBeCloseTo(w[5] + 3, 5);
  });
});
