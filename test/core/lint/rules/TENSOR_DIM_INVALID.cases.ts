import type { RuleCases } from '../rule-tester.js';

const config = (dims: string) => `name: "m"
backend: "ge"
max_batch_size: 4
input [ { name: "input" data_type: TYPE_FP32 dims: ${dims} } ]
`;

export default {
  valid: [{ config: config('[ -1, 16 ]') }],
  invalid: [
    {
      name: 'a zero dim meant as "any size"',
      config: config('[ 0, 16 ]'),
      errors: [{ line: 4, column: 54, message: "model input 'input' dimension must be integer >= 1, or -1 to indicate a variable-size dimension, got 0" }],
    },
  ],
} satisfies RuleCases;
