import type { RuleCases } from '../rule-tester.js';

const config = (kind: string) => `name: "m"
platform: "onnxruntime_onnx"
instance_group [
  {
    name: "cpu_group"
    kind: ${kind}
    gpus: [ 0 ]
  }
]
`;

export default {
  valid: [{ config: config('KIND_GPU') }],
  invalid: [
    { config: config('KIND_CPU'), errors: [{ line: 7, column: 11, message: 'instance group cpu_group of model m has kind KIND_CPU but specifies one or more GPUs' }] },
  ],
} satisfies RuleCases;
