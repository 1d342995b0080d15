import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [
    {
      name: 'a symlinked version directory that points outside the model',
      config: DIGITS_CONFIG,
      files: { '../store/1/model.onnx': digitsModel() },
      symlinks: { '1': '../store/1' },
    },
  ],
  invalid: [
    {
      name: 'a symlink in a version directory pointing back at the model directory',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel() },
      symlinks: { '1/parent': '..' },
      errors: [{ file: '1/parent', line: 1, column: 1, message: 'symlink loop' }],
    },
    {
      name: 'a symlink to itself',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel() },
      symlinks: { '1/self': 'self' },
      errors: [{ file: '1/self', line: 1, column: 1, message: 'symlink loop' }],
    },
  ],
} satisfies RuleCases;
