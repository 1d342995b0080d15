import { formatDims, maxBatchSize, tensors } from '../helpers.js';
import { modelShapeRule } from '../../config/model-config.js';
import { modelFacingDims, modelTensor, onnxModels } from '../model-tensors.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'MODEL_DIMS_MISMATCH',
  purpose: 'Checks that config dims (after reshape, plus the batch dimension when max_batch_size > 0) are compatible with the ONNX tensor shape; -1 and symbolic dims match anything.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    const mbs = maxBatchSize(ctx.config);
    for (const model of onnxModels(ctx)) {
      for (const t of tensors(ctx.config)) {
        const m = modelTensor(model.info, t.io, t.tensor.name);
        if (!m?.dims) continue;
        const dims = modelFacingDims(t.tensor);
        if (dims.length === 0 && !t.tensor.reshape) continue;
        const at = [...t.path, t.tensor.reshape ? 'reshape' : 'dims'];
        const rule = modelShapeRule(ctx.config, t.io, t.tensor);
        if (rule === 'free') continue;
        if (rule === 'ragged') {
          if (m.dims.length !== 1) {
            ctx.report({
              at: [...t.path, 'allow_ragged_batch'],
              message: `${t.label} has allow_ragged_batch, so the model gets the batch's elements as one dimension, but the model's input has ${m.dims.length}: ${formatDims(m.dims)}`,
              fix: hint('export the model with this input as a 1-D tensor, or remove allow_ragged_batch'),
            });
          }
          continue;
        }
        const full = mbs > 0 ? [-1, ...dims] : dims;
        if (m.dims.length !== full.length) {
          // Same rank as the model with batching on: DIMS_INCLUDE_BATCH explains it better.
          if (mbs > 0 && m.dims.length === dims.length && !t.tensor.reshape) continue;
          const missingBatch = mbs === 0 && m.dims.length === dims.length + 1;
          ctx.report({
            at,
            message: `${t.label} has ${full.length} dims ${formatDims(full)}${mbs > 0 ? ' (batch included)' : ''} but the model's ${t.io} has ${m.dims.length}: ${formatDims(m.dims)}`,
            fix: hint(missingBatch ? 'the model has a batch dimension: set max_batch_size > 0 and keep dims without it' : `use the model's shape${mbs > 0 ? ' without its first (batch) dim' : ''}`),
          });
          continue;
        }
        if (mbs > 1 && typeof m.dims[0] === 'number' && m.dims[0] > 0 && m.dims[0] < mbs) {
          ctx.report({
            at: ['max_batch_size'],
            message: `the model fixes the batch dimension of ${t.io} '${t.tensor.name}' to ${m.dims[0]}, but max_batch_size is ${mbs}: batches larger than ${m.dims[0]} fail`,
            fix: hint(`export the model with a dynamic batch dim (e.g. dynamic_axes in torch.onnx.export), or set max_batch_size ${m.dims[0]}`),
          });
        }
        const start = mbs > 0 ? 1 : 0;
        for (let i = start; i < full.length; i++) {
          const want = m.dims[i];
          const have = full[i]!;
          if (typeof want !== 'number' || want < 0 || have === -1 || want === have) continue;
          ctx.report({
            at: t.tensor.reshape ? at : [...t.path, 'dims', i - start],
            message: `${t.label} dim ${i - start} is ${have} in the config but ${want} in the model (model shape ${formatDims(m.dims)})`,
            fix: hint(`use ${want}, or -1 if the size varies`),
          });
        }
      }
    }
  },
};
