import type { RuleCases } from '../rule-tester.js';

const config = (reshape: string) => `name: "m"
backend: "ge"
max_batch_size: 0
input [
  {
    name: "input"
    data_type: TYPE_FP32
    dims: [ 2, 2 ]
    reshape { shape: ${reshape} }
  }
]
`;

export default {
  valid: [{ config: config('[ 4 ]') }, { config: config('[ 1, -1 ]') }],
  invalid: [
    {
      config: config('[ 0, 4 ]'),
      errors: [{ line: 9, column: 24, message: "model input 'input' reshape dimensions must be integer >= 1, or -1 to indicate a variable-size dimension" }],
    },
  ],
} satisfies RuleCases;
