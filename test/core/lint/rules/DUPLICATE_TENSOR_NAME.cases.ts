import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [
    {
      name: 'an input and an output may share a name',
      config: `name: "m"
backend: "ge"
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
`,
    },
  ],
  invalid: [
    {
      name: 'two inputs named "x"',
      config: `name: "m"
backend: "ge"
input [
  { name: "x" data_type: TYPE_FP32 dims: [ 4 ] },
  { name: "x" data_type: TYPE_INT64 dims: [ 4 ] }
]
`,
      errors: [{ line: 5, column: 11, message: "model input 'x' is declared twice (first on line 4)" }],
    },
  ],
} satisfies RuleCases;
