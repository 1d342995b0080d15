import type { RuleCases } from '../rule-tester.js';

/** A decoupled Python model's config, which model_metrics is for (MODEL_METRICS_FAMILY_UNKNOWN's cases use it too). */
export const head = `name: "m"
backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
model_transaction_policy { decoupled: true }
`;

/** Triton's QA valid_model_metrics. */
export const validModelMetrics = `${head}model_metrics {
  metric_control [
    {
      metric_identifier { family: "nv_inference_first_response_histogram_ms" }
      histogram_options { buckets: [ 1, 2, 4, 8 ] }
    }
  ]
}
`;

export default {
  valid: [
    { config: validModelMetrics },
    { name: 'no model_metrics', config: head },
  ],
  invalid: [
    {
      name: "Triton's QA: no metric_identifier",
      config: `${head}model_metrics {
  metric_control [
    { histogram_options { buckets: [ 1, 2, 4, 8 ] } }
  ]
}
`,
      errors: [{ line: 9, column: 5, message: "metric control must specify 'metric_identifier'" }],
    },
    {
      name: "Triton's QA: an empty family, and no histogram_options",
      config: `${head}model_metrics {
  metric_control [
    { metric_identifier {} histogram_options { buckets: [ 1 ] } },
    { metric_identifier { family: "nv_inference_first_response_histogram_ms" } }
  ]
}
`,
      errors: [
        { line: 9, column: 25, message: "metric identifier must specify non-empty 'family'" },
        { line: 10, column: 5, message: "metric control must specify 'histogram_options'" },
      ],
    },
    {
      name: "Triton's QA: empty buckets; and buckets out of order",
      config: `${head}model_metrics {
  metric_control [
    { metric_identifier { family: "nv_inference_first_response_histogram_ms" } histogram_options {} },
    { metric_identifier { family: "nv_inference_first_response_histogram_ms" } histogram_options { buckets: [ 5, 5, 1 ] } }
  ]
}
`,
      errors: [
        { line: 9, column: 98, message: "histogram options must specify non-empty 'buckets'" },
        { line: 10, column: 109, message: 'histogram buckets must be finite and strictly increasing, got [ 5, 5, 1 ]' },
      ],
    },
  ],
} satisfies RuleCases;
