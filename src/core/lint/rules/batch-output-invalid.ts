import { batchOutputs } from '../../config/model-config.js';
import { checkBatchSources } from '../batch-io-sources.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'BATCH_OUTPUT_INVALID',
  purpose: 'Checks that each batch_output has exactly one existing, required source input and targets existing outputs, each at most once.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const outputs = new Set((ctx.config.output ?? []).map((t) => t.name));
    const targeted = new Set<string>();
    batchOutputs(ctx.config).forEach((bo, i) => {
      const at = ['batch_output', i];
      const kind = bo.kind ?? 'BATCH_SCATTER_WITH_INPUT_SHAPE';
      const sources = bo.source_input ?? [];
      checkBatchSources(ctx, at, `batch output kind '${kind}'`, sources, 'the input whose shape the output is scattered by');
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
