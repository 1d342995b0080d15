import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [
    {
      config: `name: "pipeline"
platform: "ensemble"
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling {
  step [ { model_name: "inner" model_version: -1 input_map { key: "X" value: "x" } output_map { key: "Y" value: "y" } } ]
}
`,
    },
  ],
  invalid: [
    {
      name: 'platform "ensemble" without ensemble_scheduling',
      config: `name: "pipeline"
platform: "ensemble"
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
`,
      errors: [{ line: 2, column: 11, message: 'ensemble scheduling must be set for ensemble pipeline whose platform is ensemble' }],
    },
    {
      name: 'ensemble_scheduling on a GE model',
      config: `name: "m"
backend: "ge"
ensemble_scheduling {
  step [ { model_name: "inner" model_version: -1 } ]
}
`,
      errors: [{ line: 3, column: 1, message: "ensemble scheduling cannot be set for model 'm' whose platform is not ensemble" }],
    },
  ],
} satisfies RuleCases;
