import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'MODEL_NAME_INVALID',
  purpose: 'Checks that the model name contains neither ".." nor "/" and is not blank, which Triton rejects.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const { name } = ctx.config;
    if (name === undefined || name === '') return;
    if (!name.includes('..') && !name.includes('/') && name.trim() !== '') return;
    ctx.report({
      at: ['name'],
      message: `model name ${JSON.stringify(name)} is not allowed: model names must not contain ".." or "/" or be blank`,
      fix: hint('use a plain directory name such as "resnet50"'),
    });
  },
};
