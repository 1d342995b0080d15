import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'PREFERRED_BATCH_WITHOUT_DELAY',
  purpose: 'Checks that preferred_batch_size comes with max_queue_delay_microseconds, without which the batcher never waits to fill a preferred size.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const db = ctx.config.dynamic_batching;
    if (!db || (db.preferred_batch_size ?? []).length === 0 || Number(db.max_queue_delay_microseconds ?? 0) > 0) return;
    ctx.report({
      at: ['dynamic_batching', 'preferred_batch_size'],
      name: true,
      message: 'preferred_batch_size is set without max_queue_delay_microseconds: the batcher never waits for more requests, so it reaches a preferred size only when requests already queue up',
      fix: hint('add max_queue_delay_microseconds (e.g. 100) to dynamic_batching'),
    });
  },
};
