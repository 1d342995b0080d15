import { tensors } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'TENSOR_DIM_INVALID',
  purpose: 'Checks that every input and output dim is an integer >= 1, or -1 for a variable-size dimension.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    for (const t of tensors(ctx.config)) {
      (t.tensor.dims ?? []).forEach((raw, i) => {
        const d = Number(raw);
        if (d >= 1 || d === -1) return;
        ctx.report({
          at: [...t.path, 'dims', i],
          message: `${t.label} dimension must be integer >= 1, or -1 to indicate a variable-size dimension, got ${d}`,
          fix: hint(d === 0 ? 'use -1 for a dimension whose size varies' : 'use a positive size or -1'),
        });
      });
    }
  },
};
