import type { RuleCases } from '../rule-tester.js';

const config = (shape: string) => `name: "m"
backend: "ge"
max_batch_size: 8
input [ { name: "image" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
parameters { key: "graph.ge.inputShape" value: { string_value: "${shape}" } }
`;

export default {
  valid: [{ name: 'the batch dim freed for the batch gears', config: config('image:-1,3,224,224') }],
  invalid: [
    {
      name: 'the batch dim fixed to 1 in graph.ge.inputShape',
      config: config('image:1,3,224,224'),
      errors: [{ line: 5, column: 64, message: 'max_batch_size compiles batch gears, but the input shape "image:1,3,224,224" fixes the batch dim of "image"' }],
    },
  ],
} satisfies RuleCases;
