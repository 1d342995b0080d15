import { reportAtcProblems } from '../atc-problems.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_MIXED_INPUT_FORMATS',
  purpose: 'Checks that the inputs of a GE model do not mix FORMAT_NCHW and FORMAT_NHWC, since ATC takes one --input_format for all inputs.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    reportAtcProblems(ctx, 'mixed-formats');
  },
};
