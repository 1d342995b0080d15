import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [{ config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel(), '2/model.onnx': digitsModel() } }],
  invalid: [
    {
      name: 'an old export left next to the new one',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel(), '1/model_old.onnx': digitsModel() },
      errors: [{ file: '1/model_old.onnx', line: 1, column: 1, message: 'holds 2 .onnx files (model.onnx, model_old.onnx)' }],
    },
  ],
} satisfies RuleCases;
