import { OnnxGraphBuilder } from '../../../helpers/onnx-builder.js';
import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

/** image FLOAT [batch, 1, 28, 28] → `middle` → one value per image (`last`), tiled to probabilities FLOAT [batch, 10]. */
function digitsThrough(middle: (b: OnnxGraphBuilder) => OnnxGraphBuilder, last: string): Uint8Array {
  return middle(new OnnxGraphBuilder('digits', 13).input('image', 'FLOAT', ['batch', 1, 28, 28]))
    .node('Reshape', [last, 'shape'], ['flat'])
    .initializer('shape', 'INT64', [2], [-1n, 1n])
    .node('Tile', ['flat', 'reps'], ['probabilities'])
    .initializer('reps', 'INT64', [2], [1n, 10n])
    .output('probabilities', 'FLOAT', ['batch', 10])
    .encode();
}

/** Through an operator the cpu engine lacks (ImageDecoder). */
function imageDecoderModel(): Uint8Array {
  return digitsThrough((b) => b.node('ImageDecoder', ['image'], ['det']), 'det');
}

/**
 * The image cast to INT32 into a MaxPool, which the engine has no INT32 kernel for: every operator
 * and edge type is supported, and only the load's trial plan finds the refusal.
 */
function int32PoolModel(): Uint8Array {
  return digitsThrough((b) => b
    .node('Cast', ['image'], ['pixels'], { to: 6 })
    .node('MaxPool', ['pixels'], ['pooled'], { kernel_shape: [28, 28] }, 'pool')
    .node('Cast', ['pooled'], ['brightest'], { to: 1 }), 'brightest');
}

/** The same refusal on constants (an INT32 table into a MaxPool), found while the load folds them. */
function int32ConstantPoolModel(): Uint8Array {
  return digitsThrough((b) => b
    .node('ReduceMax', ['image'], ['brightest'], { axes: [1, 2, 3], keepdims: 1 })
    .initializer('table', 'INT32', [1, 1, 2, 2], Int32Array.from([1, 2, 3, 4]))
    .node('MaxPool', ['table'], ['peak'], { kernel_shape: [2, 2] }, 'pool_table')
    .node('Cast', ['peak'], ['offset'], { to: 1 })
    .node('Add', ['brightest', 'offset'], ['lifted']), 'lifted');
}

export default {
  valid: [{ config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } }],
  invalid: [
    {
      name: 'a model with an operator the cpu engine does not implement',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': imageDecoderModel() },
      errors: [{ line: 1, column: 1, message: 'the cpu engine cannot run ImageDecoder (ImageDecoder_0) in model.onnx' }],
    },
    {
      name: 'a model with an element type a kernel refuses mid-graph',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': int32PoolModel() },
      errors: [{ line: 1, column: 1, message: "the cpu engine cannot run MaxPool: input X ('pixels') must be FP32 or UINT8 or INT8 but is INT32 (pool) in model.onnx" }],
    },
    {
      name: 'a model with an element type a kernel refuses on constants',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': int32ConstantPoolModel() },
      errors: [{ line: 1, column: 1, message: "the cpu engine cannot run MaxPool: input X ('table') must be FP32 or UINT8 or INT8 but is INT32 (pool_table) in model.onnx" }],
    },
  ],
} satisfies RuleCases;
