import type { RuleCases } from '../rule-tester.js';

const config = (mbs: number) => `name: "m"
backend: "ge"
max_batch_size: ${mbs}
input [ { name: "image" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
parameters { key: "graph.ge.inputShape" value: { string_value: "image:-1,3,224,224" } }
parameters { key: "graph.ge.dynamicDims" value: { string_value: "1;2;4;8" } }
`;

export default {
  valid: [{ config: config(8) }, { name: 'a smaller max_batch_size than the largest gear', config: config(4) }],
  invalid: [{ config: config(16), errors: [{ line: 3, column: 17, message: 'max_batch_size is 16 but the largest gear in graph.ge.dynamicDims is 8' }] }],
} satisfies RuleCases;
