import type { RuleCases } from '../rule-tester.js';

const config = (shape: string, dims: string) => `name: "m"
backend: "ge"
max_batch_size: 8
input [ { name: "image" data_type: TYPE_FP32 dims: [ 3, -1, -1 ] } ]
parameters { key: "graph.ge.inputShape" value: { string_value: "${shape}" } }
parameters { key: "graph.ge.dynamicDims" value: { string_value: "${dims}" } }
`;

export default {
  valid: [
    { name: 'batch gears: one value per -1', config: config('image:-1,3,224,224', '1;2;4;8') },
    { name: 'batch and image-size gears: three values per gear', config: config('image:-1,3,-1,-1', '1,224,224;8,448,448') },
  ],
  invalid: [
    {
      name: 'two -1 dims but gears with one value',
      config: config('image:-1,3,-1,224', '1;2;4;8'),
      errors: [
        { line: 6, column: 65, message: 'gear 1 "1" of graph.ge.dynamicDims has 1 value, but graph.ge.inputShape "image:-1,3,-1,224" has 2 -1 dims' },
        { line: 6, column: 65, message: 'gear 2 "2"' },
        { line: 6, column: 65, message: 'gear 3 "4"' },
        { line: 6, column: 65, message: 'gear 4 "8"' },
      ],
    },
    {
      name: 'gears separated by commas instead of semicolons',
      config: config('image:-1,3,224,224', '1,2,4,8'),
      errors: [{ line: 6, column: 65, message: 'has 4 values, but graph.ge.inputShape "image:-1,3,224,224" has 1 -1 dim' }],
    },
  ],
} satisfies RuleCases;
