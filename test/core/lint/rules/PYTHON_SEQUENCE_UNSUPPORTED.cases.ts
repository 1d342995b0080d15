import type { RuleCases } from '../rule-tester.js';

const SEQUENCE = (extra = '') => `name: "m"
backend: "python"
max_batch_size: 0
sequence_batching {
  max_sequence_idle_microseconds: 5000000${extra}
}
input [
  {
    name: "X"
    data_type: TYPE_FP32
    dims: [ 1 ]
  }
]
output [
  {
    name: "Y"
    data_type: TYPE_FP32
    dims: [ 1 ]
  }
]
`;

const START = `
  control_input [
    {
      name: "START"
      control [ { kind: CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ]
    }
  ]`;

export default {
  valid: [
    { name: 'a Python sequence model that reads correlation_id() and flags()', config: SEQUENCE() },
    { name: 'control inputs on a model the native core runs', config: SEQUENCE(START).replace('backend: "python"', 'backend: "onnxruntime"') },
  ],
  invalid: [
    {
      name: 'control inputs on a Python model',
      config: SEQUENCE(START),
      errors: [{ line: 6, column: 3, message: 'sequence_batching.control_input is not filled for Python-backend models by gebe; gebe serve refuses the model at load, Triton runs it' }],
    },
    {
      name: 'implicit state on a Python model',
      config: SEQUENCE('\n  state [ { input_name: "S_IN" output_name: "S_OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]'),
      errors: [{ line: 6, column: 3, message: 'sequence_batching.state is not filled for Python-backend models by gebe' }],
    },
  ],
} satisfies RuleCases;
