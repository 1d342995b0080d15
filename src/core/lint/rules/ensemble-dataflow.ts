import { isEnsemble } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

interface Step {
  model_name?: string;
  input_map?: Record<string, string>;
  output_map?: Record<string, string>;
}

export const rule: ConfigRule = {
  id: 'ENSEMBLE_DATAFLOW',
  purpose: 'Checks that an ensemble has steps, that every tensor a step reads is an ensemble input or another step\'s output, and that every ensemble input is read and every ensemble output produced once.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isEnsemble(ctx.config) || !ctx.config.ensemble_scheduling) return;
    const name = ctx.config.name ?? '';
    const steps = ((ctx.config.ensemble_scheduling as { step?: Step[] }).step ?? []);
    if (steps.length === 0) {
      ctx.report({ at: ['ensemble_scheduling'], name: true, message: `ensemble ${name} must have at least one step`, fix: hint('add step [ { model_name: "...", input_map {...}, output_map {...} } ]') });
      return;
    }
    const inputs = new Set((ctx.config.input ?? []).map((t) => t.name));
    const producedBy = new Map<string, number>();
    steps.forEach((step, i) => {
      for (const [key, tensor] of Object.entries(step.output_map ?? {})) {
        if (producedBy.has(tensor) || inputs.has(tensor)) {
          ctx.report({
            at: ['ensemble_scheduling', 'step', i, 'output_map', key],
            message: `ensemble tensor '${tensor}' is produced more than once (step ${i} '${step.model_name ?? ''}' ${inputs.has(tensor) ? 'overwrites an ensemble input' : `and step ${producedBy.get(tensor)}`})`,
            fix: hint('give each step output its own ensemble tensor name'),
          });
        } else producedBy.set(tensor, i);
      }
    });
    const consumed = new Set<string>();
    steps.forEach((step, i) => {
      for (const [key, tensor] of Object.entries(step.input_map ?? {})) {
        consumed.add(tensor);
        if (inputs.has(tensor) || producedBy.has(tensor)) continue;
        ctx.report({
          at: ['ensemble_scheduling', 'step', i, 'input_map', key],
          message: `step ${i} ('${step.model_name ?? ''}') of ensemble ${name} reads tensor '${tensor}', which is neither an ensemble input nor the output of any step`,
          fix: hint('map it to an ensemble input, or to a tensor some step writes in its output_map'),
        });
      }
    });
    (ctx.config.input ?? []).forEach((t, i) => {
      if (!consumed.has(t.name)) {
        ctx.report({ at: ['input', i, 'name'], message: `ensemble input '${t.name}' of ensemble ${name} is not read by any step`, fix: hint('map it in a step input_map, or remove the input') });
      }
    });
    (ctx.config.output ?? []).forEach((t, i) => {
      if (!producedBy.has(t.name)) {
        ctx.report({ at: ['output', i, 'name'], message: `ensemble output '${t.name}' of ensemble ${name} is not produced by any step`, fix: hint('map a step output to it in an output_map') });
      }
    });
  },
};
