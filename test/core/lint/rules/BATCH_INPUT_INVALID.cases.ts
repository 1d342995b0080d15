import type { RuleCases } from '../rule-tester.js';


const head = `name: "m"
backend: "ge"
max_batch_size: 4
input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ -1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
`;

export default {
  valid: [
    {
      name: 'one batch input computed from an existing input',
      config: `${head}batch_input [
  {
    kind: BATCH_ELEMENT_COUNT
    target_name: "COUNT"
    data_type: TYPE_INT32
    source_input: "INPUT"
  }
]
`,
    },
  ],
  invalid: [
    {
      name: 'a batch input that names an input the model does not have',
      config: `${head}batch_input [
  {
    kind: BATCH_ELEMENT_COUNT
    target_name: "COUNT"
    data_type: TYPE_INT32
    source_input: "UNKNOWN_INPUT"
  }
]
`,
      errors: [{ line: 11, column: 19, message: "unknown source input name 'UNKNOWN_INPUT'" }],
    },
    {
      name: 'no source input and a data type other than INT32/FP32',
      config: `${head}batch_input [
  {
    kind: BATCH_ACCUMULATED_ELEMENT_COUNT
    target_name: "COUNT"
    data_type: TYPE_INT64
  }
]
`,
      errors: [
        { line: 7, column: 3, message: "batch input kind 'BATCH_ACCUMULATED_ELEMENT_COUNT' expects 1 source input, got 0" },
        { line: 10, column: 16, message: 'must be TYPE_INT32 or TYPE_FP32' },
      ],
    },
    {
      name: 'a batch input computed from an optional input',
      config: head.replace('dims: [ -1 ] }', 'dims: [ -1 ] optional: true }') + `batch_input [
  {
    kind: BATCH_ELEMENT_COUNT
    target_name: "COUNT"
    data_type: TYPE_INT32
    source_input: "INPUT"
  }
]
`,
      errors: [{ line: 11, column: 19, message: "source input 'INPUT' is optional: a request that leaves it out cannot be batched by it" }],
    },
  ],
} satisfies RuleCases;
