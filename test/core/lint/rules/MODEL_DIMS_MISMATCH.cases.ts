import type { RuleCases } from '../rule-tester.js';
import { raggedConfig, raggedModel } from '../../../helpers/ragged-model.js';
import { DIGITS_CONFIG, digitsModel, fixedBatchModel } from './models.js';

export default {
  valid: [
    { config: raggedConfig('m'), files: { '1/model.onnx': raggedModel() } },
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
    {
      name: 'a ragged input the model takes with a batch dimension',
      config: raggedConfig('m'),
      files: { '1/model.onnx': raggedModel(['b', 'n']) },
      errors: [{ line: 4, column: 75, message: "model input 'x' has allow_ragged_batch, so the model gets the batch's elements as one dimension, but the model's input has 2: [b, n]" }],
    },
  ],
} satisfies RuleCases;
