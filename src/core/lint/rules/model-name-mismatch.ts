import { replaceFix } from '../helpers.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'MODEL_NAME_MISMATCH',
  purpose: 'Checks that the config name equals the model directory name, as Triton requires.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    const dir = ctx.model?.name;
    const { name } = ctx.config;
    if (!dir || !name || name === dir) return;
    ctx.report({
      at: ['name'],
      message: `the config name '${name}' differs from its directory name '${dir}'; Triton requires them to be equal`,
      fix: replaceFix(ctx.parse.locate(['name']), JSON.stringify(dir), `set name: "${dir}" (or rename the directory to '${name}')`, false),
    });
  },
};
