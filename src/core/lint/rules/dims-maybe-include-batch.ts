import { formatDims, maxBatchSize, replaceFix, tensors } from '../helpers.js';
import { onnxModels } from '../model-tensors.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'DIMS_MAYBE_INCLUDE_BATCH',
  purpose: 'Checks, when no model file can be read, for dims that look like they include the batch dimension (rank 4 or more starting with 1, -1 or max_batch_size) while max_batch_size > 0.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const mbs = maxBatchSize(ctx.config);
    if (mbs <= 0 || onnxModels(ctx).length > 0) return; // DIMS_INCLUDE_BATCH checks exactly then
    for (const t of tensors(ctx.config)) {
      if (t.tensor.reshape) continue;
      const dims = (t.tensor.dims ?? []).map(Number);
      if (dims.length < 4 || ![1, -1, mbs].includes(dims[0]!)) continue;
      ctx.report({
        at: [...t.path, 'dims'],
        message: `dims ${formatDims(dims)} of ${t.label} look like they include the batch dimension: with max_batch_size ${mbs} Triton prepends it, so the model would get ${formatDims([-1, ...dims])}`,
        fix: replaceFix(ctx.parse.locate([...t.path, 'dims']), `[ ${dims.slice(1).join(', ')} ]`, `if the model's own shape is ${formatDims([-1, ...dims.slice(1)])}, drop the first dim: dims: [ ${dims.slice(1).join(', ')} ]`, false),
      });
    }
  },
};
