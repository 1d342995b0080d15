import { hint, type ConfigRule } from '../rule.js';

interface BatchOutput {
  kind?: string;
  target_name?: string[];
  source_input?: string[];
}

export const rule: ConfigRule = {
  id: 'BATCH_OUTPUT_INVALID',
  purpose: 'Checks that each batch_output has exactly one existing source input and targets existing outputs, each at most once.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const inputs = new Set((ctx.config.input ?? []).map((t) => t.name));
    const outputs = new Set((ctx.config.output ?? []).map((t) => t.name));
    const targeted = new Set<string>();
    ((ctx.config.batch_output ?? []) as BatchOutput[]).forEach((bo, i) => {
      const at = ['batch_output', i];
      const kind = bo.kind ?? 'BATCH_SCATTER_WITH_INPUT_SHAPE';
      const sources = bo.source_input ?? [];
      if (sources.length !== 1) {
        ctx.report({
          at: sources.length === 0 ? at : [...at, 'source_input'],
          message: `batch output kind '${kind}' expects 1 source input, got ${sources.length}`,
          fix: hint('list exactly one source_input: the input whose shape the output is scattered by'),
        });
      }
      sources.forEach((s, k) => {
        if (!inputs.has(s)) ctx.report({ at: [...at, 'source_input', k], message: `unknown source input name '${s}': no model input has that name`, fix: hint(`use one of: ${[...inputs].join(', ') || '(no inputs declared)'}`) });
      });
      (bo.target_name ?? []).forEach((name, k) => {
        const where = [...at, 'target_name', k];
        if (!outputs.has(name)) {
          ctx.report({ at: where, message: `unknown target output name '${name}': no model output has that name`, fix: hint(`use one of: ${[...outputs].join(', ') || '(no outputs declared)'}`) });
        } else if (targeted.has(name)) {
          ctx.report({ at: where, message: `target output name '${name}' can only be specified once`, fix: hint('remove the repeated target_name') });
        }
        targeted.add(name);
      });
    });
  },
};
