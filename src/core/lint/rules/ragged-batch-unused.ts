import { isRaggedInput } from '../../config/model-config.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'RAGGED_BATCH_UNUSED',
  purpose: 'Checks that allow_ragged_batch is on a model that batches: with max_batch_size 0 it has no effect, and without dynamic_batching (or sequence_batching) every request runs alone.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const config = ctx.config;
    (config.input ?? []).forEach((t, i) => {
      if (t.allow_ragged_batch !== true) return;
      const at = ['input', i, 'allow_ragged_batch'];
      if (!isRaggedInput(config, t)) {
        ctx.report({
          at,
          message: `allow_ragged_batch on input '${t.name}' has no effect: max_batch_size is 0, so requests are never batched and the model gets the input as sent`,
          fix: hint('set max_batch_size > 0 (and dynamic_batching) for ragged batching, or remove allow_ragged_batch'),
        });
      } else if (config.dynamic_batching === undefined && config.sequence_batching === undefined) {
        ctx.report({
          at,
          message: `allow_ragged_batch on input '${t.name}' batches nothing: without dynamic_batching every request runs alone (the model still gets the input as one dimension)`,
          fix: hint('add dynamic_batching { max_queue_delay_microseconds: 100 } so that requests of different lengths run together'),
        });
      }
    });
  },
};
