import { responseCacheUse } from '../../config/model-config.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'RESPONSE_CACHE_UNSUPPORTED',
  purpose: 'Checks that response_cache is enabled only where the response cache can stand for the answers: Triton refuses a decoupled model with it on a server with a cache, and never caches a sequence model.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const use = responseCacheUse(ctx.config);
    if (use === 'decoupled') {
      ctx.report({
        at: ['response_cache', 'enable'],
        name: true,
        message: 'response_cache is enabled on a decoupled model: Triton (and gebe serve) refuse to load it on a server started with a response cache (--cache-config), which cannot stand for a stream of responses',
        fix: hint('remove response_cache, or make the model answer once per request'),
      });
    } else if (use === 'sequence') {
      ctx.report({
        at: ['response_cache', 'enable'],
        name: true,
        message: 'response_cache is enabled on a sequence_batching model: its answers depend on the sequence\'s state, so neither Triton nor gebe serve caches them',
        fix: hint('remove response_cache'),
      });
    }
  },
};
