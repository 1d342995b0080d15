import { isEnsemble } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'ENSEMBLE_SCHEDULING_MISMATCH',
  purpose: "Checks that ensemble_scheduling is set exactly when the platform is \"ensemble\".",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const has = ctx.config.ensemble_scheduling !== undefined;
    const name = ctx.config.name ?? '';
    if (isEnsemble(ctx.config) && !has) {
      ctx.report({
        at: ['platform'],
        message: `ensemble scheduling must be set for ensemble ${name} whose platform is ensemble`,
        fix: hint('add ensemble_scheduling { step [ ... ] } listing the models the ensemble runs'),
      });
    } else if (!isEnsemble(ctx.config) && has) {
      ctx.report({
        at: ['ensemble_scheduling'],
        name: true,
        message: `ensemble scheduling cannot be set for model '${name}' whose platform is not ensemble`,
        fix: hint('set platform: "ensemble" (and no backend), or remove ensemble_scheduling'),
      });
    }
  },
};
