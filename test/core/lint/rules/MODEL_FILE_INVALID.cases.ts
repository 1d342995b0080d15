import { encodeOmHeader } from '../../../../src/core/model/om.js';
import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [{ config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel(), '1/model.om': encodeOmHeader({ name: 'm' }) } }],
  invalid: [
    {
      name: 'a Git LFS pointer committed instead of the model',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 31708\n' },
      errors: [{ file: '1/model.onnx', line: 1, column: 1, message: 'is not an ONNX model' }],
    },
    {
      name: 'a truncated ONNX file and a file named .om that is not one',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel().subarray(0, 1000), '2/model.om': 'not an offline model, just text that is long enough '.repeat(8) },
      errors: [
        { file: '1/model.onnx', line: 1, column: 1, message: 'is not an ONNX model' },
        { file: '2/model.om', line: 1, column: 1, message: 'does not start with the OM magic "IMOD"' },
      ],
    },
  ],
} satisfies RuleCases;
