import { FIRST_RESPONSE_HISTOGRAM, metricControls } from '../../config/model-config.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'MODEL_METRICS_FAMILY_UNKNOWN',
  purpose: 'Checks that model_metrics customizes a metric family that can be customized: Triton (and gebe serve) load the model and ignore any other family.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    metricControls(ctx.config).forEach((control, i) => {
      const family = control.metric_identifier?.family;
      if (!family || family === FIRST_RESPONSE_HISTOGRAM) return;
      ctx.report({
        at: ['model_metrics', 'metric_control', i, 'metric_identifier', 'family'],
        message: `Metric family '${family}' in 'metric_identifier' is not a customizable metric in Triton core.`,
        fix: hint(`the one family whose buckets a config sets is ${FIRST_RESPONSE_HISTOGRAM}`),
      });
    });
  },
};
