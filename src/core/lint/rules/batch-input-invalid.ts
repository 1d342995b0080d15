import { hint, type ConfigRule } from '../rule.js';

interface BatchInput {
  kind?: string;
  target_name?: string[];
  data_type?: string;
  source_input?: string[];
}

export const rule: ConfigRule = {
  id: 'BATCH_INPUT_INVALID',
  purpose: 'Checks that each batch_input has a target name, exactly one existing source input, and data type TYPE_INT32 or TYPE_FP32.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const inputs = new Set((ctx.config.input ?? []).map((t) => t.name));
    ((ctx.config.batch_input ?? []) as BatchInput[]).forEach((bi, i) => {
      const at = ['batch_input', i];
      const kind = bi.kind ?? 'BATCH_ELEMENT_COUNT';
      const sources = bi.source_input ?? [];
      if ((bi.target_name ?? []).length === 0) {
        ctx.report({ at, message: `batch input kind '${kind}' must specify 'target_name'`, fix: hint('add target_name: "<model input the batch input feeds>"') });
      }
      if (sources.length !== 1) {
        ctx.report({
          at: sources.length === 0 ? at : [...at, 'source_input'],
          message: `batch input kind '${kind}' expects 1 source input, got ${sources.length}`,
          fix: hint('list exactly one source_input: the request input the batch input is computed from'),
        });
      }
      sources.forEach((s, k) => {
        if (!inputs.has(s)) ctx.report({ at: [...at, 'source_input', k], message: `unknown source input name '${s}': no model input has that name`, fix: hint(`use one of: ${[...inputs].join(', ') || '(no inputs declared)'}`) });
      });
      if (bi.data_type && bi.data_type !== 'TYPE_INT32' && bi.data_type !== 'TYPE_FP32') {
        ctx.report({ at: [...at, 'data_type'], message: `batch input data type must be TYPE_INT32 or TYPE_FP32, got ${bi.data_type}`, fix: hint('use TYPE_INT32 or TYPE_FP32') });
      }
    });
  },
};
