import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

export default {
  valid: [{ config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } }],
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
  ],
} satisfies RuleCases;
