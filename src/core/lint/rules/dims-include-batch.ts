import { formatDims, maxBatchSize, replaceFix, tensors } from '../helpers.js';
import { modelShapeRule } from '../../config/model-config.js';
import { modelFacingDims, modelTensor, onnxModels } from '../model-tensors.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'DIMS_INCLUDE_BATCH',
  purpose: 'Checks, against the model file, that dims leave out the batch dimension when max_batch_size > 0 (Triton prepends it).',
  severity: 'error',
  fixable: true,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    const mbs = maxBatchSize(ctx.config);
    if (mbs <= 0) return;
    for (const model of onnxModels(ctx)) {
      for (const t of tensors(ctx.config)) {
        const m = modelTensor(model.info, t.io, t.tensor.name);
        if (!m?.dims || t.tensor.reshape || modelShapeRule(ctx.config, t.io, t.tensor) !== 'dims') continue;
        const dims = modelFacingDims(t.tensor);
        if (dims.length === 0 || m.dims.length !== dims.length) continue;
        const span = ctx.parse.locate([...t.path, 'dims']);
        // The model proves the first dim is the batch when it leaves that dim free and the rest
        // agree with the config: then dropping it is the only reading, and --fix applies it.
        const proven = !isFixed(m.dims[0]) && dims.slice(1).every((d, i) => d === -1 || !isFixed(m.dims![i + 1]) || m.dims![i + 1] === d);
        ctx.report({
          at: [...t.path, 'dims'],
          message: `dims ${formatDims(dims)} of ${t.label} include the batch dimension: the model's ${t.io} has rank ${m.dims.length} ${formatDims(m.dims)}, and with max_batch_size ${mbs} Triton prepends the batch, expecting ${formatDims([-1, ...dims])}`,
          fix: replaceFix(span, `[ ${dims.slice(1).join(', ')} ]`, `drop the first dim: dims: [ ${dims.slice(1).join(', ')} ]`, proven),
        });
      }
    }
  },
};

function isFixed(d: number | string | null | undefined): d is number {
  return typeof d === 'number' && d >= 0;
}
