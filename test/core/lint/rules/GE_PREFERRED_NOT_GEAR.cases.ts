import type { RuleCases } from '../rule-tester.js';

const config = (preferred: string) => `name: "m"
backend: "ge"
max_batch_size: 8
input [ { name: "image" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
dynamic_batching {
  preferred_batch_size: ${preferred}
  max_queue_delay_microseconds: 200
}
parameters { key: "graph.ge.inputShape" value: { string_value: "image:-1,3,224,224" } }
parameters { key: "graph.ge.dynamicDims" value: { string_value: "1;2;4;8" } }
`;

export default {
  valid: [{ config: config('[ 4, 8 ]') }],
  invalid: [
    {
      name: 'a preferred size of 6 between the gears 4 and 8',
      config: config('[ 6, 8 ]'),
      errors: [{ line: 6, column: 27, message: 'preferred batch size 6 is not a gear (gears: 1, 2, 4, 8): a batch of 6 runs padded to 8' }],
    },
  ],
} satisfies RuleCases;
