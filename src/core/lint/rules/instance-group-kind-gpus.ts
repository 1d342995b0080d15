import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'INSTANCE_GROUP_KIND_GPUS',
  purpose: "Checks that instance groups of kind KIND_CPU or KIND_MODEL do not list 'gpus'.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    (ctx.config.instance_group ?? []).forEach((g, i) => {
      if ((g.kind !== 'KIND_CPU' && g.kind !== 'KIND_MODEL') || (g.gpus ?? []).length === 0) return;
      const name = g.name || `${ctx.config.name ?? ''}_${i}`;
      ctx.report({
        at: ['instance_group', i, 'gpus'],
        message: `instance group ${name} of model ${ctx.config.name ?? ''} has kind ${g.kind} but specifies one or more GPUs`,
        fix: hint(`remove gpus, or use kind: KIND_GPU`),
      });
    });
  },
};
