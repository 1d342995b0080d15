import type { RuleCases } from '../rule-tester.js';

const ensemble = (extra: string) => `name: "pipeline"
platform: "ensemble"
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling {
  step [ { model_name: "inner" model_version: -1 input_map { key: "X" value: "x" } output_map { key: "Y" value: "y" } } ]
}
${extra}`;

export default {
  valid: [{ config: ensemble('') }],
  invalid: [
    {
      name: 'an ensemble with an instance group',
      config: ensemble('instance_group [ { count: 2 kind: KIND_CPU } ]\n'),
      errors: [{ line: 8, column: 1, message: "must not specify 'instance_group'" }],
    },
  ],
} satisfies RuleCases;
