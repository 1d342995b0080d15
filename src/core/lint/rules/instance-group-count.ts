import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'INSTANCE_GROUP_COUNT',
  purpose: "Checks that every instance group's count is at least 1 when it is set.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    (ctx.config.instance_group ?? []).forEach((g, i) => {
      if (g.count === undefined || Number(g.count) >= 1) return;
      const name = g.name || `${ctx.config.name ?? ''}_${i}`;
      ctx.report({
        at: ['instance_group', i, 'count'],
        message: `instance group ${name} of model ${ctx.config.name ?? ''} must specify 'count' >= 1, got ${g.count}`,
        fix: hint('use count: 1 or more (or remove count for the default of 1)'),
      });
    });
  },
};
