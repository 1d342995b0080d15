import type { RuleCases } from '../rule-tester.js';
import { raggedConfig, raggedModel } from '../../../helpers/ragged-model.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [
    // x is ragged (the model gets it as one dimension) and y a batch output: neither keeps to dims.
    { config: raggedConfig('m'), files: { '1/model.onnx': raggedModel() } },
    { name: 'dims without the batch dimension', config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } },
    {
      name: 'a model without batching lists the full shape',
      config: DIGITS_CONFIG.replace('max_batch_size: 8', 'max_batch_size: 0').replace('dims: [ 1, 28, 28 ]', 'dims: [ -1, 1, 28, 28 ]').replace('dims: [ 10 ]', 'dims: [ -1, 10 ]'),
      files: { '1/model.onnx': digitsModel() },
    },
  ],
  invalid: [
    {
      name: 'dims copied from the ONNX shape, batch included, with max_batch_size 8',
      config: DIGITS_CONFIG.replace('dims: [ 1, 28, 28 ]', 'dims: [ 1, 1, 28, 28 ]'),
      files: { '1/model.onnx': digitsModel() },
      errors: [{ line: 8, column: 11, message: 'include the batch dimension' }],
      // The model's rank and its free first dim prove it: --fix drops it.
      output: DIGITS_CONFIG,
    },
    {
      name: 'the rest disagrees with the model, so dropping the first dim is only a suggestion',
      config: DIGITS_CONFIG.replace('dims: [ 1, 28, 28 ]', 'dims: [ 1, 1, 28, 29 ]'),
      files: { '1/model.onnx': digitsModel() },
      errors: [{ line: 8, column: 11, message: 'include the batch dimension' }],
      output: DIGITS_CONFIG.replace('dims: [ 1, 28, 28 ]', 'dims: [ 1, 1, 28, 29 ]'),
    },
  ],
} satisfies RuleCases;
