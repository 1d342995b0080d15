import path from 'node:path';
import { formatDims } from '../helpers.js';
import { batchInputTargets, onnxModels, sequenceTensors } from '../model-tensors.js';
import { hint, type ConfigRule } from '../rule.js';
import { ONNX_TO_TRITON } from '../../model/onnx.js';

export const rule: ConfigRule = {
  id: 'MODEL_INPUT_MISSING',
  purpose: 'Checks that a config that lists inputs lists every input the ONNX model needs.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    const declared = ctx.config.input ?? [];
    if (declared.length === 0) return; // the GE backend fills in inputs from the model
    // Sequence batching feeds its control inputs and implicit-state inputs itself, and the batcher its batch inputs.
    const names = new Set([
      ...declared.map((t) => t.name),
      ...sequenceTensors(ctx.config).filter((t) => t.io === 'input').map((t) => t.name),
      ...batchInputTargets(ctx.config).map((t) => t.name),
    ]);
    for (const model of onnxModels(ctx)) {
      for (const m of model.info.inputs) {
        if (names.has(m.name)) continue;
        const dims = (m.dims ?? []).map((d) => (typeof d === 'number' && d > 0 ? d : -1));
        ctx.report({
          at: ['input'],
          name: true,
          message: `the model ${path.basename(model.path)} needs input '${m.name}' ${formatDims(m.dims ?? [])}, which the config does not declare`,
          fix: hint(`add input { name: "${m.name}" data_type: ${ONNX_TO_TRITON[m.elemType] ?? 'TYPE_FP32'} dims: ${formatDims(dims)} } (drop the batch dim when max_batch_size > 0)`),
        });
      }
    }
  },
};
