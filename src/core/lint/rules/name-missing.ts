import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'NAME_MISSING',
  purpose: 'Checks that the config names its model, so it does not depend on the directory it sits in.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (ctx.config.name) return;
    const dirName = ctx.model?.name;
    ctx.report({
      at: ['name'],
      message: dirName
        ? `the config does not set 'name'; Triton will take the directory name '${dirName}'`
        : `the config does not set 'name' (model configuration must specify 'name')`,
      fix: hint(`add name: "${dirName ?? '<model directory name>'}" at the top of the config`),
    });
  },
};
