import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'PRESERVE_ORDERING_CONFLICT',
  purpose: "Checks that preserve_ordering is not combined with several priority levels or with DELAY queue policies that have a timeout.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const db = ctx.config.dynamic_batching;
    if (!db?.preserve_ordering) return;
    if (Number(db.priority_levels ?? 0) > 1) {
      ctx.report({
        at: ['dynamic_batching', 'priority_levels'],
        message: `Only one priority level is allowed when 'preserve_ordering' is true (priority_levels is ${db.priority_levels})`,
        fix: hint('remove priority_levels, or set preserve_ordering: false'),
      });
    }
    const policies: Array<[Array<string | number>, NonNullable<typeof db.default_queue_policy>]> = [];
    if (db.default_queue_policy) policies.push([['dynamic_batching', 'default_queue_policy', 'timeout_action'], db.default_queue_policy]);
    for (const [key, p] of Object.entries(db.priority_queue_policy ?? {})) {
      policies.push([['dynamic_batching', 'priority_queue_policy', key, 'timeout_action'], p]);
    }
    for (const [at, p] of policies) {
      if (p.timeout_action !== 'DELAY' || Number(p.default_timeout_microseconds ?? 0) === 0) continue;
      ctx.report({
        at,
        message: `Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true`,
        fix: hint('use timeout_action: REJECT, or set preserve_ordering: false'),
      });
    }
  },
};
