import { maxBatchSize } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'WARMUP_BATCH_SIZE',
  purpose: 'Checks that every model_warmup batch_size is at most max_batch_size (1 for a model without batching).',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const mbs = maxBatchSize(ctx.config);
    const limit = Math.max(mbs, 1);
    (ctx.config.model_warmup ?? []).forEach((w, i) => {
      const size = Number(w.batch_size ?? 0);
      if (size <= limit) return;
      ctx.report({
        at: ['model_warmup', i, 'batch_size'],
        message: `warmup '${w.name ?? ''}' has batch_size ${size}, more than ${mbs > 0 ? `max_batch_size ${mbs}` : 'the 1 a model without batching (max_batch_size 0) accepts'}; the warmup request fails and the model does not load`,
        fix: hint(`use batch_size ${limit} or less`),
      });
    });
  },
};
