import { maxBatchSize } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'SEQUENCE_OLDEST_PREFERRED_SIZE',
  purpose: "Checks that the oldest sequence batcher's preferred_batch_size values are positive and at most max_batch_size.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const oldest = (ctx.config.sequence_batching as { oldest?: { preferred_batch_size?: number[] } } | undefined)?.oldest;
    const mbs = maxBatchSize(ctx.config);
    (oldest?.preferred_batch_size ?? []).forEach((raw, i) => {
      const size = Number(raw);
      if (size > 0 && size <= mbs) return;
      ctx.report({
        at: ['sequence_batching', 'oldest', 'preferred_batch_size', i],
        message: size <= 0
          ? `sequence batching preferred batch size must be positive, got ${size}`
          : `sequence batching preferred batch size must be <= max batch size: ${size} > max_batch_size ${mbs}`,
        fix: hint(`use sizes from 1 to ${Math.max(mbs, 1)}`),
      });
    });
  },
};
