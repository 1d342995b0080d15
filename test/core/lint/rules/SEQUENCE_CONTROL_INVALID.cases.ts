import type { RuleCases } from '../rule-tester.js';

const config = (controls: string) => `name: "m"
backend: "ge"
max_batch_size: 8
sequence_batching {
  control_input [
${controls}
  ]
}
`;

const start = '    { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] }';

export default {
  valid: [
    {
      config: config(`${start},
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] }`),
    },
  ],
  invalid: [
    {
      name: 'READY without false/true values',
      config: config(`${start},
    { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY } ] }`),
      errors: [{ line: 7, column: 31, message: "sequence batching must specify either 'int32_false_true', 'fp32_false_true' or 'bool_false_true' for CONTROL_SEQUENCE_READY" }],
    },
    {
      name: 'one tensor for two kinds, and START given twice',
      config: config(`${start},
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] }, { kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] } ] }`),
      errors: [
        { line: 7, column: 13, message: "sequence batching control tensor 'START' is specified for multiple control kinds" },
        { line: 7, column: 31, message: 'sequence batching specifies multiple CONTROL_SEQUENCE_START tensors' },
      ],
    },
    {
      name: 'the same tensor name in two control inputs with different kinds',
      config: config(`${start},
    { name: "START" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] }`),
      errors: [{ line: 7, column: 13, message: "sequence batching control tensor 'START' is specified for multiple control kinds" }],
    },
  ],
} satisfies RuleCases;
