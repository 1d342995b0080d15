import { isGe } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_GPU_IGNORED',
  purpose: "Checks that GE-backend instance groups do not rely on kind KIND_GPU or 'gpus', which the GE backend ignores.",
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isGe(ctx.config)) return;
    (ctx.config.instance_group ?? []).forEach((g, i) => {
      if ((g.gpus ?? []).length > 0) {
        ctx.report({
          at: ['instance_group', i, 'gpus'],
          name: true,
          message: `the GE backend ignores 'gpus'; NPUs are chosen with parameters device_ids`,
          fix: hint('remove gpus and set parameters { key: "device_ids" value: { string_value: "0" } }'),
        });
      } else if (g.kind === 'KIND_GPU') {
        ctx.report({
          at: ['instance_group', i, 'kind'],
          message: `the GE backend ignores kind KIND_GPU; the model runs on the NPUs in parameters device_ids`,
          fix: hint('use kind: KIND_CPU (or leave kind out) and choose NPUs with device_ids'),
        });
      }
    });
  },
};
