import { tensors } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'RESHAPE_DIM_INVALID',
  purpose: 'Checks that every reshape dimension is an integer >= 1, or -1 for a variable-size dimension.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    for (const t of tensors(ctx.config)) {
      (t.tensor.reshape?.shape ?? []).forEach((raw, i) => {
        const d = Number(raw);
        if (d >= 1 || d === -1) return;
        ctx.report({
          at: [...t.path, 'reshape', 'shape', i],
          message: `${t.label} reshape dimensions must be integer >= 1, or -1 to indicate a variable-size dimension, got ${d}`,
          fix: hint('use a positive size or -1'),
        });
      });
    }
  },
};
