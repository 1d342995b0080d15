import type { RuleCases } from '../rule-tester.js';

const config = (shape: string) => `name: "m"
backend: "ge"
max_batch_size: 8
input [ { name: "image" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
parameters { key: "graph.ge.inputShape" value: { string_value: "${shape}" } }
`;

export default {
  valid: [{ config: config('image:-1,3,224,224') }],
  invalid: [
    {
      name: 'a typo in the input name',
      config: config('images:-1,3,224,224'),
      errors: [{ line: 5, column: 64, message: "graph.ge.inputShape names 'images', which is not an input of this config" }],
    },
    {
      name: 'dims separated by x',
      config: config('image:-1x3x224x224'),
      errors: [{ line: 5, column: 64, message: 'graph.ge.inputShape is malformed: dim "-1x3x224x224" of "image" is not a positive integer or -1' }],
    },
  ],
} satisfies RuleCases;
