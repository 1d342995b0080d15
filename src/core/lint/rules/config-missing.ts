import { hint, type ModelRule } from '../rule.js';

export const rule: ModelRule = {
  id: 'CONFIG_MISSING',
  purpose: 'Checks that every model directory has a config.pbtxt.',
  severity: 'error',
  fixable: false,
  scope: 'model',
  check(ctx) {
    if (ctx.model.config) return;
    ctx.report({
      file: ctx.model.display,
      message: `model directory ${ctx.model.display} has no config.pbtxt: Triton's GE backend needs one naming backend "ge"`,
      fix: hint(`create ${ctx.model.display}/config.pbtxt (gebe init ${ctx.model.name} --yes scaffolds one)`),
    });
  },
};
