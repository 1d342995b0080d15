import { OnnxGraphBuilder } from '../../../helpers/onnx-builder.js';
import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

/** image FLOAT [batch, 1, 28, 28] → probabilities FLOAT [batch, 10] through an operator the cpu engine lacks (TfIdfVectorizer). */
function tfidfModel(): Uint8Array {
  return new OnnxGraphBuilder('digits', 13)
    .input('image', 'FLOAT', ['batch', 1, 28, 28])
    .node('TfIdfVectorizer', ['image'], ['det'])
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
      files: { '1/model.onnx': tfidfModel() },
      errors: [{ line: 1, column: 1, message: 'the cpu engine cannot run TfIdfVectorizer (TfIdfVectorizer_0) in model.onnx' }],
    },
  ],
} satisfies RuleCases;
