import type { RuleCases } from '../rule-tester.js';

const config = (head: string, tail = '') => `name: "m"
backend: "ge"
${head}
input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]
${tail}`;

export default {
  valid: [
    { name: 'a batching model with the dynamic batcher', config: config('max_batch_size: 8', 'dynamic_batching { max_queue_delay_microseconds: 100 }\n') },
  ],
  invalid: [
    {
      name: 'a model that does not batch',
      config: config('max_batch_size: 0'),
      errors: [{ line: 4, column: 75, message: "allow_ragged_batch on input 'x' has no effect: max_batch_size is 0" }],
    },
    {
      name: 'a batching model without the dynamic batcher',
      config: config('max_batch_size: 8'),
      errors: [{ line: 4, column: 75, message: "allow_ragged_batch on input 'x' batches nothing: without dynamic_batching every request runs alone" }],
    },
  ],
} satisfies RuleCases;
