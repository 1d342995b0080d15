import { encodeOmHeader } from '../../../../src/core/model/om.js';
import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [{ name: 'an .om next to its source .onnx', config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel(), '1/model.om': encodeOmHeader({ name: 'm' }) } }],
  invalid: [
    {
      name: 'only the compiled .om in the version directory',
      config: DIGITS_CONFIG,
      files: { '1/model.om': encodeOmHeader({ name: 'm' }) },
      errors: [{ file: '1/model.om', line: 1, column: 1, message: 'gebe serve can run an .om' }],
    },
  ],
} satisfies RuleCases;
