import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [
    { config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } },
    { name: 'a config checked alone has no directory to compare with', config: DIGITS_CONFIG.replace('name: "m"', 'name: "other"') },
  ],
  invalid: [
    {
      name: 'the directory was renamed but the config was not',
      model: 'digits_v2',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel() },
      errors: [{ line: 1, column: 7, message: "the config name 'm' differs from its directory name 'digits_v2'" }],
    },
  ],
} satisfies RuleCases;
