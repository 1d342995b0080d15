import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [
    {
      name: 'versions plus the folders Triton knows are not versions',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel(), '10/model.onnx': digitsModel(), 'warmup/image.bin': 'x', 'configs/h100.pbtxt': '', 'initial_state/': '' },
    },
  ],
  invalid: [
    {
      name: 'a zero-padded version and a named one',
      config: DIGITS_CONFIG,
      files: { '1/model.onnx': digitsModel(), '002/model.onnx': digitsModel(), 'v3/model.onnx': digitsModel() },
      errors: [
        { file: '002', line: 1, column: 1, message: "Triton skips directory '002' of model m: version directory names must not have leading zeros" },
        { file: 'v3', line: 1, column: 1, message: 'version directory names must be non-negative integers' },
      ],
    },
  ],
} satisfies RuleCases;
