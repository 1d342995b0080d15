import { reportAtcProblems } from '../atc-problems.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_BATCH_GEARS_FIXED_BATCH',
  purpose: 'Checks that a GE model with max_batch_size > 0 and a graph.ge.inputShape frees the batch dim (-1 first) of every input, since ATC\'s --dynamic_batch_size needs it.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    reportAtcProblems(ctx, 'batch-gears-fixed-batch');
  },
};
