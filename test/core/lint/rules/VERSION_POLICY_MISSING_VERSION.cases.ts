import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [{ config: `${DIGITS_CONFIG}version_policy { specific { versions: [ 1, 2 ] } }\n`, files: { '1/model.onnx': digitsModel(), '2/model.onnx': digitsModel() } }],
  invalid: [
    {
      config: `${DIGITS_CONFIG}version_policy { specific { versions: [ 1, 2 ] } }\n`,
      files: { '1/model.onnx': digitsModel() },
      errors: [{ line: 18, column: 44, message: 'version policy asks for version 2 of model m, but m/2/ does not exist' }],
    },
  ],
} satisfies RuleCases;
