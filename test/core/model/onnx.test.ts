import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { OnnxGraphBuilder, randomValues } from '../../helpers/onnx-builder.js';
import { inspectOnnx, OnnxParseError } from '../../../src/core/model/onnx.js';

const ORT_TYPES: Record<string, number> = { float32: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11 };

/** Checks inspectOnnx against ONNX Runtime's own reading of the same bytes. */
async function expectSameAsOrt(bytes: Uint8Array): Promise<void> {
  const info = inspectOnnx(bytes);
  const session = await ort.InferenceSession.create(bytes);
  const view = (list: typeof info.inputs) => list.map((t) => ({ name: t.name, type: t.elemType, shape: t.dims }));
  const ortView = (meta: readonly ort.InferenceSession.ValueMetadata[]) =>
    meta.map((m) => {
      const t = m as { name: string; type: string; shape: ReadonlyArray<number | string> };
      return { name: t.name, type: ORT_TYPES[t.type], shape: t.shape };
    });
  expect(view(info.inputs)).toEqual(ortView(session.inputMetadata));
  expect(view(info.outputs)).toEqual(ortView(session.outputMetadata));
  await session.release();
}

describe('inspectOnnx', () => {
  it('reads inputs, outputs, element types, symbolic dims, opset and operators like ONNX Runtime', async () => {
    const bytes = new OnnxGraphBuilder('digits', 17)
      .input('image', 'FLOAT', ['batch', 1, 28, 28])
      .initializer('weight', 'FLOAT', [784, 10], randomValues(7840, 3))
      .node('Flatten', ['image'], ['flat'], { axis: 1 })
      .node('MatMul', ['flat', 'weight'], ['logits'])
      .node('Softmax', ['logits'], ['probabilities'], { axis: 1 })
      .node('ArgMax', ['probabilities'], ['label'], { axis: 1, keepdims: 0 })
      .output('probabilities', 'FLOAT', ['batch', 10])
      .output('label', 'INT64', ['batch'])
      .encode();
    await expectSameAsOrt(bytes);
    const info = inspectOnnx(bytes);
    expect(info.opset).toBe(17);
    expect(info.irVersion).toBe(8);
    expect(info.producerName).toBe('gebe-onnx-builder');
    expect(info.operators).toEqual(['Flatten', 'MatMul', 'Softmax', 'ArgMax']);
    expect(info.nodeCount).toBe(4);
    expect(info.inputs[0]!.dims).toEqual(['batch', 1, 28, 28]);
  });

  it('leaves out graph inputs that are initializers (weights a client never feeds)', async () => {
    const bytes = new OnnxGraphBuilder('overridable', 13)
      .input('x', 'FLOAT', [2, 3])
      .input('bias', 'FLOAT', [3])
      .initializer('bias', 'FLOAT', [3], [1, 2, 3])
      .node('Add', ['x', 'bias'], ['y'])
      .output('y', 'FLOAT', [2, 3])
      .encode();
    expect(inspectOnnx(bytes).inputs.map((i) => i.name)).toEqual(['x']);
    await expectSameAsOrt(bytes);
  });

  it('reads integer, boolean and half types and unknown dims', async () => {
    const bytes = new OnnxGraphBuilder('types', 13)
      .input('ids', 'INT64', ['batch', 'sequence'])
      .input('mask', 'BOOL', ['batch', 'sequence'])
      .input('scale', 'FLOAT16', [1])
      .node('Cast', ['mask'], ['mask64'], { to: 7 })
      .node('Mul', ['ids', 'mask64'], ['masked'])
      .node('Cast', ['scale'], ['scale32'], { to: 1 })
      .output('masked', 'INT64', ['batch', 'sequence'])
      .output('scale32', 'FLOAT', [null])
      .encode();
    const info = inspectOnnx(bytes);
    expect(info.inputs.map((i) => [i.name, i.elemType])).toEqual([['ids', 7], ['mask', 9], ['scale', 10]]);
    expect(info.outputs[1]!.dims).toEqual([null]);
    expect(info.operators).toEqual(['Cast', 'Mul']);
  });

  it('rejects bytes that are not an ONNX model with OnnxParseError', () => {
    const good = new OnnxGraphBuilder().input('x', 'FLOAT', [1]).node('Relu', ['x'], ['y']).output('y', 'FLOAT', [1]).encode();
    expect(() => inspectOnnx(good.subarray(0, good.length - 5))).toThrow(OnnxParseError);
    expect(() => inspectOnnx(new TextEncoder().encode('version https://git-lfs.github.com/spec/v1\n'))).toThrow(OnnxParseError);
    expect(() => inspectOnnx(new Uint8Array())).toThrow(/no graph/);
    expect(() => inspectOnnx(Uint8Array.from([0x08, 0x07]))).toThrow(/no graph/);
  });
});
