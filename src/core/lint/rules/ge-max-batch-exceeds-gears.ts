import { isGe, maxBatchSize } from '../helpers.js';
import { gearsOf } from '../ge-options.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_MAX_BATCH_EXCEEDS_GEARS',
  purpose: 'Checks that max_batch_size of a GE model with batch gears is not larger than its largest gear, since no compiled graph could run such a batch.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isGe(ctx.config)) return;
    const batchSizes = gearsOf(ctx.config)?.batchSizes;
    const mbs = maxBatchSize(ctx.config);
    if (!batchSizes || batchSizes.length === 0 || mbs <= 0) return;
    const largest = Math.max(...batchSizes);
    if (mbs <= largest) return;
    ctx.report({
      at: ['max_batch_size'],
      message: `max_batch_size is ${mbs} but the largest gear in graph.ge.dynamicDims is ${largest}: a batch of ${largest + 1} to ${mbs} has no compiled graph and fails`,
      fix: hint(`set max_batch_size ${largest}, or add a gear of ${mbs} to graph.ge.dynamicDims`),
    });
  },
};
