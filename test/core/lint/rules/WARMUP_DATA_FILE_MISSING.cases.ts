import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

const config = `${DIGITS_CONFIG}model_warmup [
  {
    name: "real_digit"
    batch_size: 1
    inputs {
      key: "image"
      value: { data_type: TYPE_FP32 dims: [ 1, 28, 28 ] input_data_file: "seven.bin" }
    }
  }
]
`;

export default {
  valid: [{ config, files: { '1/model.onnx': digitsModel(), 'warmup/seven.bin': new Uint8Array(784 * 4) } }],
  invalid: [
    {
      name: 'the data file was put next to config.pbtxt, not in warmup/',
      config,
      files: { '1/model.onnx': digitsModel(), 'seven.bin': new Uint8Array(784 * 4) },
      errors: [{ line: 24, column: 74, message: "warmup 'real_digit' reads input 'image' from m/warmup/seven.bin, which does not exist" }],
    },
  ],
} satisfies RuleCases;
