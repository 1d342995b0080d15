import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [
    { config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } },
    { name: 'a frozen TensorFlow graph', config: DIGITS_CONFIG, files: { '1/model.pb': 'frozen graph bytes' } },
  ],
  invalid: [
    {
      name: 'a version directory with only a label file',
      config: DIGITS_CONFIG,
      files: { '1/labels.txt': 'zero\none\n' },
      errors: [{ file: '1', line: 1, column: 1, message: 'has no model file' }],
    },
  ],
} satisfies RuleCases;
