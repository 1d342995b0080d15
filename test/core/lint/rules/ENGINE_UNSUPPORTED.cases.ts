import { OnnxGraphBuilder } from '../../../helpers/onnx-builder.js';
import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

/** image FLOAT [batch, 1, 28, 28] → probabilities FLOAT [batch, 10] through an operator the cpu engine lacks (Det). */
function detModel(): Uint8Array {
  return new OnnxGraphBuilder('digits', 13)
    .input('image', 'FLOAT', ['batch', 1, 28, 28])
    .node('Det', ['image'], ['det'])
    .node('Reshape', ['det', 'shape'], ['flat'])
    .initializer('shape', 'INT64', [2], [-1n, 1n])
    .node('Tile', ['flat', 'reps'], ['probabilities'])
    .initializer('reps', 'INT64', [2], [1n, 10n])
    .output('probabilities', 'FLOAT', ['batch', 10])
    .encode();
}

export default {
  valid: [{ config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } }],
  invalid: [
    {
      name: 'a model with an operator the cpu engine does not implement',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': detModel() },
      errors: [{ line: 1, column: 1, message: 'the cpu engine cannot run Det (Det_0) in model.onnx' }],
    },
  ],
} satisfies RuleCases;
