import { configLimitFindings } from '../../config/limits.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'CONFIG_LIMIT',
  purpose: 'Checks that no count in the config that costs memory or threads per unit (instances, gears, priority levels, preferred sizes, queue sizes, warmup samples, tensors, dims, ensemble steps, rate-limiter resources) is over the limit `gebe serve` loads.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    for (const f of configLimitFindings(ctx.config, ctx.limits)) {
      ctx.report({ at: f.at, message: f.message, fix: hint('lower the value to the limit or below') });
    }
  },
};
