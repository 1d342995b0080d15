import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

const withLabels = (file: string) => DIGITS_CONFIG.replace('    dims: [ 10 ]\n', `    dims: [ 10 ]\n    label_filename: "${file}"\n`);
const labels = '0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n';

export default {
  valid: [
    { config: withLabels('labels.txt'), files: { '1/model.onnx': digitsModel(), 'labels.txt': labels } },
    { name: 'a label file in a subfolder', config: withLabels('meta/labels.txt'), files: { '1/model.onnx': digitsModel(), 'meta/labels.txt': labels } },
  ],
  invalid: [
    {
      name: "a path with '..' out of the model directory",
      config: withLabels('../../../etc/passwd'),
      files: { '1/model.onnx': digitsModel() },
      errors: [{ line: 16, column: 21, message: 'label_filename "../../../etc/passwd" is not a path inside the model directory' }],
    },
    {
      name: 'a symlink out of the model directory',
      config: withLabels('labels.txt'),
      files: { '1/model.onnx': digitsModel() },
      symlinks: { 'labels.txt': '/etc/passwd' },
      errors: [{ line: 16, column: 21, message: 'label_filename "labels.txt" is not a path inside the model directory' }],
    },
  ],
} satisfies RuleCases;
