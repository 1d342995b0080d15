import type { RuleCases } from '../rule-tester.js';

// What `gebe init --from` writes for a model with a free sequence axis.
const tokens = (dims: string, extra = '') => `name: "m"
backend: "ge"
max_batch_size: 8
input [ { name: "ids" data_type: TYPE_INT64 dims: ${dims} } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 2 ] } ]
${extra}`;

export default {
  valid: [
    { name: 'a fixed sequence length', config: tokens('[ 128 ]') },
    {
      name: 'the free dim filled by graph.ge.dynamicDims gears (ATC --dynamic_dims)',
      config: tokens('[ -1 ]', 'parameters { key: "graph.ge.inputShape" value: { string_value: "ids:-1,-1" } }\nparameters { key: "graph.ge.dynamicDims" value: { string_value: "1,128;8,128;8,512" } }\n'),
    },
    { name: 'another backend: ATC is not involved', config: tokens('[ -1 ]').replace('backend: "ge"', 'backend: "onnxruntime"') },
  ],
  invalid: [
    {
      name: 'a free sequence axis with no gear (gebe convert refuses it)',
      config: tokens('[ -1 ]'),
      errors: [{ line: 4, column: 53, message: 'input "ids" has a variable dim (dims[0] = -1); ATC compiles fixed shapes, and no graph.ge.dynamicDims gear gives this dim a size' }],
    },
    {
      name: 'a -1 in graph.ge.inputShape of a model without batching and without gears',
      config: tokens('[ 1, 3 ]', 'parameters { key: "graph.ge.inputShape" value: { string_value: "ids:-1,3" } }\n').replace('max_batch_size: 8', 'max_batch_size: 0'),
      errors: [{ line: 6, column: 64, message: 'the input shape "ids:-1,3" has -1 but the config gives no gears to compile' }],
    },
  ],
} satisfies RuleCases;
