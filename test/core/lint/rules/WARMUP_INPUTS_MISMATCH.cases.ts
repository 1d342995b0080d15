import type { RuleCases } from '../rule-tester.js';

const config = (key: string) => `name: "m"
backend: "ge"
max_batch_size: 8
input [ { name: "image" data_type: TYPE_FP32 dims: [ 4 ] } ]
model_warmup [
  {
    name: "zeros"
    batch_size: 1
    inputs { key: "${key}" value: { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } }
  }
]
`;

export default {
  valid: [{ config: config('image') }],
  invalid: [
    {
      name: 'a warmup input key with a typo',
      config: config('images'),
      errors: [
        { line: 7, column: 11, message: "warmup 'zeros' does not feed input 'image'" },
        { line: 9, column: 19, message: "warmup 'zeros' feeds 'images', which is not a model input; did you mean 'image'?" },
      ],
    },
  ],
} satisfies RuleCases;
