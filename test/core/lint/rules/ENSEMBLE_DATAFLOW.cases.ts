import type { RuleCases } from '../rule-tester.js';

const ensemble = (steps: string) => `name: "pipeline"
platform: "ensemble"
max_batch_size: 8
input [ { name: "raw" data_type: TYPE_UINT8 dims: [ -1 ] } ]
output [ { name: "label" data_type: TYPE_INT64 dims: [ 1 ] } ]
ensemble_scheduling {
  step [
${steps}
  ]
}
`;

export default {
  valid: [
    {
      name: 'raw → preprocess → tensor → classify → label',
      config: ensemble(`    {
      model_name: "preprocess"
      model_version: -1
      input_map { key: "RAW" value: "raw" }
      output_map { key: "TENSOR" value: "tensor" }
    },
    {
      model_name: "classify"
      model_version: -1
      input_map { key: "INPUT" value: "tensor" }
      output_map { key: "LABEL" value: "label" }
    }`),
    },
  ],
  invalid: [
    {
      name: 'the second step reads a tensor nobody writes, so the ensemble output is never produced',
      config: ensemble(`    {
      model_name: "preprocess"
      model_version: -1
      input_map { key: "RAW" value: "raw" }
      output_map { key: "TENSOR" value: "tensor" }
    },
    {
      model_name: "classify"
      model_version: -1
      input_map { key: "INPUT" value: "tensr" }
      output_map { key: "LABEL" value: "labels" }
    }`),
      errors: [
        { line: 5, column: 18, message: "ensemble output 'label' of ensemble pipeline is not produced by any step" },
        { line: 17, column: 39, message: "reads tensor 'tensr', which is neither an ensemble input nor the output of any step" },
      ],
    },
  ],
} satisfies RuleCases;
