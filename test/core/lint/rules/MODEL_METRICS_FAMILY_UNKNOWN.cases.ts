import type { RuleCases } from '../rule-tester.js';

const head = `name: "m"
backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
model_transaction_policy { decoupled: true }
`;

export default {
  valid: [
    {
      config: `${head}model_metrics {
  metric_control [
    {
      metric_identifier { family: "nv_inference_first_response_histogram_ms" }
      histogram_options { buckets: [ 1, 2, 4, 8 ] }
    }
  ]
}
`,
    },
  ],
  invalid: [
    {
      name: "Triton's QA: a family that cannot be customized",
      config: `${head}model_metrics {
  metric_control [
    {
      metric_identifier { family: "nv_inference_request_success" }
      histogram_options { buckets: [ 1, 2, 4, 8 ] }
    }
  ]
}
`,
      errors: [{ line: 10, column: 35, message: "Metric family 'nv_inference_request_success' in 'metric_identifier' is not a customizable metric in Triton core." }],
    },
  ],
} satisfies RuleCases;
