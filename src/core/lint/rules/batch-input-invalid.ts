import { batchInputs } from '../../config/model-config.js';
import { checkBatchSources } from '../batch-io-sources.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'BATCH_INPUT_INVALID',
  purpose: 'Checks that each batch_input has a target name, exactly one existing, required source input, and data type TYPE_INT32 or TYPE_FP32.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    batchInputs(ctx.config).forEach((bi, i) => {
      const at = ['batch_input', i];
      const kind = bi.kind ?? 'BATCH_ELEMENT_COUNT';
      const sources = bi.source_input ?? [];
      if ((bi.target_name ?? []).length === 0) {
        ctx.report({ at, message: `batch input kind '${kind}' must specify 'target_name'`, fix: hint('add target_name: "<model input the batch input feeds>"') });
      }
      checkBatchSources(ctx, at, `batch input kind '${kind}'`, sources, 'the request input the batch input is computed from');
      if (bi.data_type && bi.data_type !== 'TYPE_INT32' && bi.data_type !== 'TYPE_FP32') {
        ctx.report({ at: [...at, 'data_type'], message: `batch input data type must be TYPE_INT32 or TYPE_FP32, got ${bi.data_type}`, fix: hint('use TYPE_INT32 or TYPE_FP32') });
      }
    });
  },
};
