import type { RuleCases } from '../rule-tester.js';
import { head, validModelMetrics } from './MODEL_METRICS_INVALID.cases.js';

export default {
  valid: [{ config: validModelMetrics }],
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
