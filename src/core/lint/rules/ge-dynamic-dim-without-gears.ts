import { reportAtcProblems } from '../atc-problems.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_DYNAMIC_DIM_WITHOUT_GEARS',
  purpose: 'Checks that every -1 in a GE model\'s input shapes has a gear to fill it (max_batch_size for the batch dim, graph.ge.dynamicDims for any other), since ATC compiles fixed shapes and gebe convert refuses the rest.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    reportAtcProblems(ctx, 'dynamic-dim-without-gears');
  },
};
