import { isEnsemble } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

const FORBIDDEN = ['instance_group', 'optimization', 'model_warmup', 'dynamic_batching', 'sequence_batching'] as const;

export const rule: ConfigRule = {
  id: 'ENSEMBLE_FORBIDDEN_FIELD',
  purpose: 'Checks that an ensemble sets none of instance_group, optimization, model_warmup or a batcher, which only real models have.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isEnsemble(ctx.config)) return;
    for (const field of FORBIDDEN) {
      const value = ctx.config[field];
      if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      ctx.report({
        at: [field],
        name: true,
        message: `ensemble ${ctx.config.name ?? ''} must not specify '${field}': an ensemble only routes tensors between models, which have their own`,
        fix: hint(`move ${field} to the config of the model the ensemble calls`),
      });
    }
  },
};
