import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [
    {
      name: 'a symlink to a model file that exists',
      config: DIGITS_CONFIG,
      files: { 'store/digits.onnx': digitsModel() },
      symlinks: { '1/model.onnx': '../store/digits.onnx' },
    },
  ],
  invalid: [
    {
      name: 'a dangling symlink in a version directory',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel() },
      symlinks: { '1/labels.txt': '../missing/labels.txt' },
      errors: [{ file: '1/labels.txt', line: 1, column: 1, message: 'no such file or directory' }],
    },
  ],
} satisfies RuleCases;
