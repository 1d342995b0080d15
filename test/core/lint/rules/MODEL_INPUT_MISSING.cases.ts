import type { RuleCases } from '../rule-tester.js';
import { raggedConfig, raggedModel } from '../../../helpers/ragged-model.js';
import { ACCUMULATOR_CONFIG, accumulatorModel, twoInputModel } from './models.js';

const config = (inputs: string) => `name: "m"
backend: "ge"
max_batch_size: 8
input [
${inputs}
]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 2 ] } ]
`;

const ids = '  { name: "input_ids" data_type: TYPE_INT64 dims: [ -1 ] }';
const mask = '  { name: "attention_mask" data_type: TYPE_INT64 dims: [ -1 ] }';

export default {
  valid: [
    // lens and ends are batch inputs: the batcher computes them.
    { config: raggedConfig('m'), files: { '1/model.onnx': raggedModel() } },
    { config: config(`${ids},\n${mask}`), files: { '1/model.onnx': twoInputModel() } },
    // START is a sequence control input and ACC_IN an implicit-state input: sequence batching feeds them.
    { config: ACCUMULATOR_CONFIG, files: { '1/model.onnx': accumulatorModel() } },
  ],
  invalid: [
    {
      name: 'the attention mask left out',
      config: config(ids),
      files: { '1/model.onnx': twoInputModel() },
      errors: [{ line: 4, column: 1, message: "the model model.onnx needs input 'attention_mask' [batch, seq], which the config does not declare" }],
    },
    {
      name: 'an implicit-state model whose config lost its state',
      config: ACCUMULATOR_CONFIG.replace(/  state \[[^]*\} \]\n/, ''),
      files: { '1/model.onnx': accumulatorModel() },
      errors: [{ line: 4, column: 1, message: "the model model.onnx needs input 'ACC_IN' [batch, 1], which the config does not declare" }],
    },
  ],
} satisfies RuleCases;
