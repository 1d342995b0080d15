import type { RuleCases } from '../rule-tester.js';

const config = (gpus: string) => `name: "m"
platform: "onnxruntime_onnx"
instance_group [
  {
    kind: KIND_GPU
    gpus: ${gpus}
  }
]
`;

export default {
  valid: [{ name: 'any non-negative id (whether it exists depends on the machine)', config: config('[ 0, 42 ]') }],
  invalid: [
    {
      config: config('[ 0, -1 ]'),
      errors: [{ line: 6, column: 16, message: 'instance group m_0 of model m specifies invalid or unsupported gpu id -1' }],
    },
  ],
} satisfies RuleCases;
