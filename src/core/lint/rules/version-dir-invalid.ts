import { hint, type ModelRule } from '../rule.js';

export const rule: ModelRule = {
  id: 'VERSION_DIR_INVALID',
  purpose: 'Checks that every subdirectory of a model is a version (an integer without leading zeros) or a known folder (warmup, initial_state, configs), since Triton skips the others.',
  severity: 'warning',
  fixable: false,
  scope: 'model',
  check(ctx) {
    for (const s of ctx.model.skipped) {
      const suggestion = /^\d+$/.test(s.name) ? String(Number(s.name)) : undefined;
      ctx.report({
        file: s.display,
        message: `Triton skips directory '${s.name}' of model ${ctx.model.name}: ${s.reason}`,
        fix: hint(suggestion !== undefined ? `rename it to '${suggestion}'` : 'rename it to a version number such as 1, or move it out of the model directory'),
      });
    }
  },
};
