import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [{ config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } }],
  invalid: [
    {
      name: 'an FP16 output for a model that computes in FP32',
      config: DIGITS_CONFIG.replace('data_type: TYPE_FP32\n    dims: [ 10 ]', 'data_type: TYPE_FP16\n    dims: [ 10 ]'),
      files: { '1/model.onnx': digitsModel() },
      errors: [{ line: 14, column: 16, message: "model output 'probabilities' is TYPE_FP16 in the config but FLOAT (TYPE_FP32) in the model" }],
    },
  ],
} satisfies RuleCases;
