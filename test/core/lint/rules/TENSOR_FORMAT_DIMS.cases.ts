import type { RuleCases } from '../rule-tester.js';

const config = (dims: string) => `name: "m"
backend: "ge"
max_batch_size: 8
input [
  {
    name: "image"
    data_type: TYPE_FP32
    format: FORMAT_NCHW
    dims: ${dims}
  }
]
`;

export default {
  valid: [
    { config: config('[ 3, 224, 224 ]') },
    { name: 'a reshape to the model\'s 4-D shape (Triton checks dims)', config: config('[ 3, 224, 224 ]\n    reshape { shape: [ 1, 3, 224, 224 ] }') },
  ],
  invalid: [{ config: config('[ 224, 224 ]'), errors: [{ line: 8, column: 13, message: "model input 'image' has format FORMAT_NCHW but 2 dims" }] }],
} satisfies RuleCases;
