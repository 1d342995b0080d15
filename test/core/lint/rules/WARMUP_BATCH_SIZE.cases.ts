import type { RuleCases } from '../rule-tester.js';

const config = (batch: number) => `name: "m"
backend: "ge"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
model_warmup [
  {
    name: "full_batch"
    batch_size: ${batch}
    inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } }
  }
]
`;

export default {
  valid: [{ config: config(8) }],
  invalid: [{ config: config(16), errors: [{ line: 8, column: 17, message: "warmup 'full_batch' has batch_size 16, more than max_batch_size 8" }] }],
} satisfies RuleCases;
