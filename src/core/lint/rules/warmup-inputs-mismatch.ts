import { closest } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'WARMUP_INPUTS_MISMATCH',
  purpose: 'Checks that each model_warmup feeds exactly the model inputs, with their data types.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const inputs = new Map((ctx.config.input ?? []).map((t) => [t.name, t]));
    if (inputs.size === 0) return;
    (ctx.config.model_warmup ?? []).forEach((w, i) => {
      const fed = w.inputs ?? {};
      for (const [name, spec] of Object.entries(fed)) {
        const input = inputs.get(name);
        if (!input) {
          const suggestion = closest(name, inputs.keys());
          ctx.report({
            at: ['model_warmup', i, 'inputs', name],
            name: true,
            message: `warmup '${w.name ?? ''}' feeds '${name}', which is not a model input${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
            fix: hint(suggestion ? `rename the key to "${suggestion}"` : `use the input names: ${[...inputs.keys()].join(', ')}`),
          });
        } else if (spec?.data_type && input.data_type && spec.data_type !== input.data_type) {
          ctx.report({
            at: ['model_warmup', i, 'inputs', name, 'data_type'],
            message: `warmup '${w.name ?? ''}' feeds '${name}' as ${spec.data_type}, but the input is ${input.data_type}`,
            fix: hint(`use data_type: ${input.data_type}`),
          });
        }
      }
      const missing = [...inputs.values()].filter((t) => !(t.name in fed) && t.optional !== true).map((t) => t.name);
      if (missing.length > 0) {
        ctx.report({
          at: ['model_warmup', i, 'name'],
          message: `warmup '${w.name ?? ''}' does not feed input${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')}; the warmup request fails and the model does not load`,
          fix: hint(`add inputs { key: "${missing[0]}" value: { data_type: ..., dims: [...], zero_data: true } }`),
        });
      }
    });
  },
};
