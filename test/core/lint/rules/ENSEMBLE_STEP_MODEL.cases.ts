import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

const pipeline = (model: string, inputKey: string) => `name: "pipeline"
platform: "ensemble"
input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]
output [ { name: "probabilities" data_type: TYPE_FP32 dims: [ 10 ] } ]
ensemble_scheduling {
  step [
    {
      model_name: "${model}"
      model_version: -1
      input_map { key: "${inputKey}" value: "image" }
      output_map { key: "probabilities" value: "probabilities" }
    }
  ]
}
`;

const repo = {
  'pipeline/1/': '',
  'digits/config.pbtxt': DIGITS_CONFIG.replace('name: "m"', 'name: "digits"'),
  'digits/1/model.onnx': digitsModel(),
};

export default {
  valid: [
    { as: 'repository', model: 'pipeline', config: pipeline('digits', 'image'), files: repo },
    { name: 'a config checked alone cannot see the other models', config: pipeline('elsewhere', 'image') },
  ],
  invalid: [
    {
      name: 'a step naming a model the repository does not have',
      as: 'repository',
      model: 'pipeline',
      config: pipeline('digit', 'image'),
      files: repo,
      errors: [{ line: 8, column: 19, message: "step 0 of ensemble pipeline runs model 'digit', which is not in the repository; did you mean 'digits'?" }],
    },
    {
      name: "an input_map key that is not an input of the step's model",
      as: 'repository',
      model: 'pipeline',
      config: pipeline('digits', 'images'),
      files: repo,
      errors: [{ line: 10, column: 24, message: "step 0 maps 'images', which is not an input of model 'digits'; did you mean 'image'?" }],
    },
  ],
} satisfies RuleCases;
