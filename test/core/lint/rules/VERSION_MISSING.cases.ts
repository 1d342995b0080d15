import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [{ config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } }],
  invalid: [
    {
      name: 'the model file next to config.pbtxt instead of in 1/',
      config: DIGITS_CONFIG,
      files: { 'model.onnx': digitsModel() },
      errors: [{ file: '.', line: 1, column: 1, message: 'model m has no version directory' }],
    },
    {
      name: 'a specific policy that names no existing version',
      config: `${DIGITS_CONFIG}version_policy { specific { versions: [ 3 ] } }\n`,
      files: { '1/model.onnx': digitsModel() },
      errors: [{ line: 18, column: 1, message: 'the version policy of model m selects no available version (found: 1)' }],
    },
  ],
} satisfies RuleCases;
