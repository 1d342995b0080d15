import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'PRIORITY_LEVEL_RANGE',
  purpose: "Checks that default_priority_level and the priority_queue_policy keys lie in [1, priority_levels].",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const db = ctx.config.dynamic_batching;
    const levels = Number(db?.priority_levels ?? 0);
    // Triton checks the levels only when priorities are on (priority_levels > 0).
    if (!db || levels === 0) return;
    const range = `[1, ${levels}]`;
    const dflt = Number(db.default_priority_level ?? 0);
    if (dflt < 1 || dflt > levels) {
      ctx.report({
        at: db.default_priority_level === undefined ? ['dynamic_batching', 'priority_levels'] : ['dynamic_batching', 'default_priority_level'],
        message: `default priority level must be in range ${range}, got ${dflt}${db.default_priority_level === undefined ? ' (not set)' : ''}`,
        fix: hint(`set default_priority_level to a level between 1 and ${levels}`),
      });
    }
    for (const key of Object.keys(db.priority_queue_policy ?? {})) {
      const level = Number(key);
      if (level >= 1 && level <= levels) continue;
      ctx.report({
        at: ['dynamic_batching', 'priority_queue_policy', key],
        name: true,
        message: `priority queue policy must have priority level in range ${range}, got key ${key}`,
        fix: hint(`use keys between 1 and ${levels}`),
      });
    }
  },
};
