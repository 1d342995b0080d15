import { closest, isEnsemble } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

interface Step {
  model_name?: string;
  input_map?: Record<string, string>;
  output_map?: Record<string, string>;
}

export const rule: ConfigRule = {
  id: 'ENSEMBLE_STEP_MODEL',
  purpose: "Checks, when a whole repository is validated, that every ensemble step names a model of the repository and maps only that model's inputs and outputs.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  needs: 'repository',
  check(ctx) {
    if (!ctx.peer || !isEnsemble(ctx.config)) return;
    const names = ctx.target.models.map((m) => m.name);
    const steps = ((ctx.config.ensemble_scheduling as { step?: Step[] } | undefined)?.step ?? []);
    steps.forEach((step, i) => {
      const name = step.model_name ?? '';
      const peer = ctx.peer!(name);
      if (!peer) {
        const suggestion = closest(name, names);
        ctx.report({
          at: ['ensemble_scheduling', 'step', i, 'model_name'],
          message: `step ${i} of ensemble ${ctx.config.name ?? ''} runs model '${name}', which is not in the repository${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
          fix: hint(suggestion ? `use model_name: "${suggestion}"` : `add the model ${name} to the repository`),
        });
        return;
      }
      const config = peer.config;
      if (!config) return;
      for (const [io, map] of [['input', step.input_map], ['output', step.output_map]] as const) {
        const declared = (config[io] ?? []).map((t) => t.name);
        if (declared.length === 0) continue; // the step model's tensors come from auto-complete
        for (const key of Object.keys(map ?? {})) {
          if (declared.includes(key)) continue;
          const suggestion = closest(key, declared);
          ctx.report({
            at: ['ensemble_scheduling', 'step', i, `${io}_map`, key],
            name: true,
            message: `step ${i} maps '${key}', which is not an ${io} of model '${name}'${suggestion ? `; did you mean '${suggestion}'?` : ''} (${io}s: ${declared.join(', ')})`,
            fix: hint(`use the ${io} names of ${name}/config.pbtxt`),
          });
        }
      }
    });
  },
};
