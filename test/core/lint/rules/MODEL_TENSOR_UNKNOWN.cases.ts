import type { RuleCases } from '../rule-tester.js';
import { raggedConfig, raggedModel } from '../../../helpers/ragged-model.js';
import { ACCUMULATOR_CONFIG, DIGITS_CONFIG, accumulatorModel, digitsModel } from './models.js';

export default {
  valid: [
    { config: raggedConfig('m'), files: { '1/model.onnx': raggedModel() } },
    { config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } },
    // The state tensors ACC_IN/ACC_OUT and the control START are the model's, named under sequence_batching.
    { config: ACCUMULATOR_CONFIG, files: { '1/model.onnx': accumulatorModel() } },
  ],
  invalid: [
    {
      name: 'input and output names that differ from the model',
      config: DIGITS_CONFIG.replace('name: "image"', 'name: "images"').replace('name: "probabilities"', 'name: "output0"'),
      files: { '1/model.onnx': digitsModel() },
      errors: [
        { line: 6, column: 11, message: "model input 'images' is not an input of model.onnx; did you mean 'image'?" },
        { line: 13, column: 11, message: "model output 'output0' is not an output of model.onnx (model outputs: probabilities)" },
      ],
      // One model input and one config input (the same for outputs): each name has one answer.
      output: DIGITS_CONFIG,
    },
    {
      name: 'state tensors the model does not have',
      config: ACCUMULATOR_CONFIG.replace('input_name: "ACC_IN"', 'input_name: "ACC"').replace('output_name: "ACC_OUT"', 'output_name: "STATE_OUT"'),
      files: { '1/model.onnx': accumulatorModel() },
      errors: [
        { line: 9, column: 17, message: "state input 'ACC' is not an input of model.onnx; did you mean 'ACC_IN'?" },
        { line: 10, column: 18, message: "state output 'STATE_OUT' is not an output of model.onnx" },
      ],
    },
    {
      name: 'a batch input whose target the model does not have',
      config: raggedConfig('m').replace('target_name: "ends"', 'target_name: "offsets"'),
      files: { '1/model.onnx': raggedModel() },
      errors: [{ line: 7, column: 56, message: "batch input target 'offsets' is not an input of model.onnx" }],
    },
  ],
} satisfies RuleCases;
