import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [
    {
      name: 'a symlinked directory inside the repository',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel(), '../shared/notes.txt': 'x' },
      symlinks: { '1/shared': '../../shared' },
    },
  ],
  invalid: [
    {
      name: 'a symlink to /',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel() },
      symlinks: { '1/root': '/' },
      errors: [{ file: '1/root', line: 1, column: 1, message: 'is a symlink to a directory outside the model repository; gebe does not follow it' }],
    },
  ],
} satisfies RuleCases;
