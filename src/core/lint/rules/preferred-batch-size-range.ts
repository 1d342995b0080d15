import { hint, type ConfigRule } from '../rule.js';
import { maxBatchSize } from '../helpers.js';

export const rule: ConfigRule = {
  id: 'PREFERRED_BATCH_SIZE_RANGE',
  purpose: "Checks that every dynamic_batching preferred_batch_size is positive and at most 'max_batch_size'.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const sizes = ctx.config.dynamic_batching?.preferred_batch_size ?? [];
    const mbs = maxBatchSize(ctx.config);
    sizes.forEach((raw, i) => {
      const size = Number(raw);
      const at = ['dynamic_batching', 'preferred_batch_size', i];
      if (size <= 0) {
        ctx.report({ at, message: `dynamic batching preferred size must be positive, got ${size}`, fix: hint('remove it or use a batch size of 1 or more') });
      } else if (size > mbs) {
        ctx.report({
          at,
          message: mbs === 0
            ? `dynamic batching preferred size ${size} is set but max_batch_size is 0 (the model does not batch)`
            : `dynamic batching preferred size must be <= max batch size: ${size} > max_batch_size ${mbs}`,
          fix: hint(mbs === 0 ? 'set max_batch_size to the largest batch the model accepts, or remove preferred_batch_size' : `use sizes up to ${mbs}, or raise max_batch_size`),
        });
      }
    });
  },
};
