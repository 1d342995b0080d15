import type { RuleCases } from '../rule-tester.js';

const config = (second: string) => `name: "m"
backend: "ge"
max_batch_size: 8
input [
  { name: "a" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, 32, 32 ] },
  { name: "b" data_type: TYPE_FP32 format: ${second} dims: [ 3, 32, 32 ] }
]
`;

export default {
  valid: [{ name: 'one format for every input', config: config('FORMAT_NCHW') }],
  invalid: [
    {
      name: 'NCHW and NHWC inputs',
      config: config('FORMAT_NHWC'),
      errors: [{ line: 6, column: 44, message: 'inputs mix FORMAT_NCHW ("a") and FORMAT_NHWC ("b"); ATC takes one --input_format for all inputs' }],
    },
  ],
} satisfies RuleCases;
