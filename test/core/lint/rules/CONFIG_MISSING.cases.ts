import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [{ config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } }],
  invalid: [
    {
      name: 'a model directory with a model file but no config.pbtxt',
      files: { '1/model.onnx': digitsModel() },
      errors: [{ file: '.', line: 1, column: 1, message: 'has no config.pbtxt' }],
    },
  ],
} satisfies RuleCases;
