import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GPU_ID_NEGATIVE',
  purpose: "Checks that instance-group 'gpus' lists no negative device ids (whether an id exists depends on the machine and is not checked).",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    (ctx.config.instance_group ?? []).forEach((g, i) => {
      (g.gpus ?? []).forEach((id, k) => {
        if (Number(id) >= 0) return;
        const name = g.name || `${ctx.config.name ?? ''}_${i}`;
        ctx.report({
          at: ['instance_group', i, 'gpus', k],
          message: `instance group ${name} of model ${ctx.config.name ?? ''} specifies invalid or unsupported gpu id ${id}: device ids are 0 or more`,
          fix: hint('use device ids from 0 up'),
        });
      });
    });
  },
};
