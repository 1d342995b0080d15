import { isGe } from '../helpers.js';
import { gearsOf } from '../ge-options.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_PREFERRED_NOT_GEAR',
  purpose: 'Checks that each preferred_batch_size of a GE model with batch gears is one of the gears, since other sizes are padded up to the next gear.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isGe(ctx.config)) return;
    const batchSizes = gearsOf(ctx.config)?.batchSizes;
    if (!batchSizes) return;
    (ctx.config.dynamic_batching?.preferred_batch_size ?? []).forEach((raw, i) => {
      const size = Number(raw);
      if (batchSizes.includes(size)) return;
      const next = batchSizes.filter((g) => g > size).sort((a, b) => a - b)[0];
      ctx.report({
        at: ['dynamic_batching', 'preferred_batch_size', i],
        message: `preferred batch size ${size} is not a gear (gears: ${batchSizes.join(', ')})${next ? `: a batch of ${size} runs padded to ${next}` : ': no gear is large enough to run it'}`,
        fix: hint(`use gear sizes as preferred_batch_size (${batchSizes.join(', ')})`),
      });
    });
  },
};
