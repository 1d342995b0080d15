import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

const config = DIGITS_CONFIG.replace('    dims: [ 10 ]\n', '    dims: [ 10 ]\n    label_filename: "labels.txt"\n');

export default {
  valid: [
    { config, files: { '1/model.onnx': digitsModel(), 'labels.txt': '0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n' } },
    { name: 'a config checked alone', config },
  ],
  invalid: [
    {
      name: 'the label file put in the version directory',
      config,
      files: { '1/model.onnx': digitsModel(), '1/labels.txt': '0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n' },
      errors: [{ line: 16, column: 21, message: 'names label file m/labels.txt, which does not exist (there is m/1/labels.txt' }],
    },
  ],
} satisfies RuleCases;
