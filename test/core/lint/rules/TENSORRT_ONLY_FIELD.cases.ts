import type { RuleCases } from '../rule-tester.js';

const config = (head: string) => `name: "m"
${head}
input [ { name: "shape" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true } ]
`;

export default {
  valid: [{ config: config('platform: "tensorrt_plan"') }],
  invalid: [{ config: config('backend: "ge"'), errors: [{ line: 3, column: 76, message: "model input 'shape' sets is_shape_tensor, which only the TensorRT backend supports" }] }],
} satisfies RuleCases;
