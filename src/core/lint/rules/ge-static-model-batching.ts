import { isGe, maxBatchSize, parameter } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_STATIC_MODEL_BATCHING',
  purpose: 'Checks for static_model "1" combined with batching, where the GE backend runs each merged batch as one batch-1 call per request.',
  severity: 'info',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isGe(ctx.config) || parameter(ctx.config, 'static_model') !== '1') return;
    const mbs = maxBatchSize(ctx.config);
    if (mbs <= 1) return;
    ctx.report({
      at: ['parameters', 'static_model', 'string_value'],
      message: `static_model "1" compiles one static shape, so with max_batch_size ${mbs} the backend runs a merged batch as up to ${mbs} sequential batch-1 calls`,
      fix: hint('use static_model "0" with batch gears (graph.ge.inputShape / graph.ge.dynamicDims) to run batches in one call'),
    });
  },
};
