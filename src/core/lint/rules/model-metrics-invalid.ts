import { metricControls } from '../../config/model-config.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'MODEL_METRICS_INVALID',
  purpose: 'Checks that each model_metrics.metric_control names a metric family and gives its histogram buckets, finite and increasing, as Triton requires to load the model.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    metricControls(ctx.config).forEach((control, i) => {
      const at = ['model_metrics', 'metric_control', i];
      const example = 'metric_identifier { family: "nv_inference_first_response_histogram_ms" } histogram_options { buckets: [ 100, 500, 2000, 5000 ] }';
      if (control.metric_identifier === undefined) {
        ctx.report({ at, message: "metric control must specify 'metric_identifier'", fix: hint(`give the family it customizes: ${example}`) });
      } else if (!control.metric_identifier.family) {
        ctx.report({ at: [...at, 'metric_identifier'], message: "metric identifier must specify non-empty 'family'", fix: hint('name the family, e.g. family: "nv_inference_first_response_histogram_ms"') });
      }
      const options = control.histogram_options;
      if (options === undefined) {
        ctx.report({ at, message: "metric control must specify 'histogram_options'", fix: hint(`give its buckets: ${example}`) });
        return;
      }
      const buckets = (options.buckets ?? []).map(Number);
      if (buckets.length === 0) {
        ctx.report({ at: [...at, 'histogram_options'], message: "histogram options must specify non-empty 'buckets'", fix: hint('list the buckets\' upper bounds, e.g. buckets: [ 100, 500, 2000, 5000 ]') });
      } else if (buckets.some((b, k) => !Number.isFinite(b) || (k > 0 && b <= buckets[k - 1]!))) {
        ctx.report({
          at: [...at, 'histogram_options', 'buckets'],
          message: `histogram buckets must be finite and strictly increasing, got [ ${buckets.join(', ')} ]: Prometheus histograms count each observation into the first bucket at or above it`,
          fix: hint('sort the bounds and drop repeats'),
        });
      }
    });
  },
};
