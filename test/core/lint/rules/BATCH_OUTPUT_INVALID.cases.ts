import type { RuleCases } from '../rule-tester.js';

const head = `name: "m"
backend: "ge"
max_batch_size: 4
input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ -1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ -1 ] } ]
`;

export default {
  valid: [
    {
      config: `${head}batch_output [
  {
    target_name: "OUTPUT"
    kind: BATCH_SCATTER_WITH_INPUT_SHAPE
    source_input: "INPUT"
  }
]
`,
    },
  ],
  invalid: [
    {
      name: 'the same output targeted twice',
      config: `${head}batch_output [
  {
    target_name: [ "OUTPUT", "OUTPUT" ]
    kind: BATCH_SCATTER_WITH_INPUT_SHAPE
    source_input: "INPUT"
  }
]
`,
      errors: [{ line: 8, column: 30, message: "target output name 'OUTPUT' can only be specified once" }],
    },
    {
      name: 'an unknown target and two source inputs',
      config: `${head}batch_output [
  {
    target_name: "UNKNOWN_OUTPUT"
    kind: BATCH_SCATTER_WITH_INPUT_SHAPE
    source_input: [ "INPUT", "INPUT" ]
  }
]
`,
      errors: [
        { line: 8, column: 18, message: "unknown target output name 'UNKNOWN_OUTPUT'" },
        { line: 10, column: 19, message: "batch output kind 'BATCH_SCATTER_WITH_INPUT_SHAPE' expects 1 source input, got 2" },
      ],
    },
  ],
} satisfies RuleCases;
