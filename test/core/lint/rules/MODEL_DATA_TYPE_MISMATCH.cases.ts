import type { RuleCases } from '../rule-tester.js';
import { raggedConfig, raggedModel } from '../../../helpers/ragged-model.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [{ config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } }, { config: raggedConfig('m'), files: { '1/model.onnx': raggedModel() } }],
  invalid: [
    {
      name: 'an FP16 output for a model that computes in FP32',
      config: DIGITS_CONFIG.replace('data_type: TYPE_FP32\n    dims: [ 10 ]', 'data_type: TYPE_FP16\n    dims: [ 10 ]'),
      files: { '1/model.onnx': digitsModel() },
      errors: [{ line: 14, column: 16, message: "model output 'probabilities' is TYPE_FP16 in the config but FLOAT (TYPE_FP32) in the model" }],
    },
    {
      name: 'a batch input written as FP32 into an INT32 model input',
      config: raggedConfig('m').replace('target_name: "ends" data_type: TYPE_INT32', 'target_name: "ends" data_type: TYPE_FP32'),
      files: { '1/model.onnx': raggedModel() },
      errors: [{ line: 7, column: 74, message: "batch input target 'ends' is written as TYPE_FP32, but the model's input 'ends' is INT32 (TYPE_INT32)" }],
    },
  ],
} satisfies RuleCases;
