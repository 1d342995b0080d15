import { replaceFix } from '../helpers.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'MAX_BATCH_SIZE_NEGATIVE',
  purpose: "Checks that 'max_batch_size' is not negative.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const mbs = Number(ctx.config.max_batch_size ?? 0);
    if (mbs >= 0) return;
    ctx.report({
      at: ['max_batch_size'],
      message: `'max_batch_size' must be non-negative value, got ${mbs}`,
      fix: replaceFix(ctx.parse.locate(['max_batch_size']), '0', 'use 0 for a model without a batch dimension, or the largest batch the model accepts', false),
    });
  },
};
