import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel, fixedBatchModel } from './models.js';

export default {
  valid: [
    { config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } },
    { name: 'variable (-1) dims match any model size', config: DIGITS_CONFIG.replace('dims: [ 1, 28, 28 ]', 'dims: [ 1, -1, -1 ]'), files: { '1/model.onnx': digitsModel() } },
  ],
  invalid: [
    {
      name: 'an image size the model was not exported for',
      config: DIGITS_CONFIG.replace('dims: [ 1, 28, 28 ]', 'dims: [ 1, 32, 32 ]'),
      files: { '1/model.onnx': digitsModel() },
      errors: [
        { line: 8, column: 16, message: "model input 'image' dim 1 is 32 in the config but 28 in the model" },
        { line: 8, column: 20, message: "model input 'image' dim 2 is 32 in the config but 28 in the model" },
      ],
    },
    {
      name: 'a model exported with a fixed batch of 1 and max_batch_size 8',
      config: `name: "m"
backend: "ge"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
`,
      files: { '1/model.onnx': fixedBatchModel() },
      errors: [
        { line: 3, column: 17, message: "the model fixes the batch dimension of input 'x' to 1, but max_batch_size is 8" },
        { line: 3, column: 17, message: "the model fixes the batch dimension of output 'y' to 1, but max_batch_size is 8" },
      ],
    },
  ],
} satisfies RuleCases;
