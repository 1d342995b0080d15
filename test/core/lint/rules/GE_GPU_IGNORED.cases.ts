import type { RuleCases } from '../rule-tester.js';

const config = (group: string) => `name: "m"
backend: "ge"
instance_group [
  {
    count: 2
${group}  }
]
parameters { key: "device_ids" value: { string_value: "0,1" } }
`;

export default {
  valid: [
    { name: 'NPUs chosen with device_ids', config: config('') },
    { name: 'a GPU instance group on a non-GE backend', config: config('    kind: KIND_GPU\n    gpus: [ 0 ]\n').replace('backend: "ge"', 'platform: "onnxruntime_onnx"') },
  ],
  invalid: [
    {
      name: 'GPU settings copied from an ONNX Runtime config',
      config: config('    kind: KIND_GPU\n    gpus: [ 0, 1 ]\n'),
      errors: [
        { line: 6, column: 11, message: 'the GE backend ignores kind KIND_GPU' },
        { line: 7, column: 5, message: "the GE backend ignores 'gpus'" },
      ],
      output: config(''),
    },
    {
      name: 'kind KIND_GPU alone',
      config: config('    kind: KIND_GPU\n'),
      errors: [{ line: 6, column: 11, message: 'the GE backend ignores kind KIND_GPU' }],
      output: config(''),
    },
    {
      name: 'an instance group written on one line',
      config: 'name: "m"\nbackend: "ge"\ninstance_group [ { count: 1, kind: KIND_GPU, gpus: [ 0 ] } ]\n',
      errors: [
        { line: 3, column: 36, message: 'the GE backend ignores kind KIND_GPU' },
        { line: 3, column: 46, message: "the GE backend ignores 'gpus'" },
      ],
      output: 'name: "m"\nbackend: "ge"\ninstance_group [ { count: 1, } ]\n',
    },
  ],
} satisfies RuleCases;
