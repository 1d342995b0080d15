import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

const deep = (levels: number) => `${Array.from({ length: levels }, () => 'd').join('/')}/file.txt`;

export default {
  valid: [{ name: '32 levels deep', config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel(), [deep(32)]: 'x' } }],
  invalid: [
    {
      name: '40 levels deep',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel(), [deep(40)]: 'x' },
      errors: [{ file: `${Array.from({ length: 33 }, () => 'd').join('/')}`, line: 1, column: 1, message: 'is more than 32 directory levels deep inside its model; the search stops there' }],
    },
  ],
} satisfies RuleCases;
