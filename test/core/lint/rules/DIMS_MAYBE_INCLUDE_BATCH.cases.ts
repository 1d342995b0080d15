import type { RuleCases } from '../rule-tester.js';

const config = (dims: string) => `name: "m"
backend: "ge"
max_batch_size: 16
input [
  {
    name: "image"
    data_type: TYPE_FP32
    dims: ${dims}
  }
]
`;

export default {
  valid: [
    { name: '[1, 28, 28] with max_batch_size 16: a channel dim, not a batch dim', config: config('[ 1, 28, 28 ]') },
    { name: 'a rank-4 shape that does not start with 1, -1 or max_batch_size', config: config('[ 3, 8, 224, 224 ]') },
  ],
  invalid: [
    {
      name: '[1, 1, 28, 28] with max_batch_size 16 and no model file to check against',
      config: config('[ 1, 1, 28, 28 ]'),
      errors: [{ line: 8, column: 11, message: 'look like they include the batch dimension' }],
    },
  ],
} satisfies RuleCases;
