import { ONNX_TO_TRITON, ONNX_TYPE_NAMES } from '../../model/onnx.js';
import { replaceFix, tensors } from '../helpers.js';
import { batchInputTargets, modelTensor, onnxModels } from '../model-tensors.js';
import { batchInputs } from '../../config/model-config.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'MODEL_DATA_TYPE_MISMATCH',
  purpose: 'Checks that every config input and output, and every batch_input target, has the data type of the ONNX tensor it names.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    for (const model of onnxModels(ctx)) {
      for (const t of tensors(ctx.config)) {
        const m = modelTensor(model.info, t.io, t.tensor.name);
        if (!m || m.elemType === 0 || !t.tensor.data_type) continue;
        const expected = ONNX_TO_TRITON[m.elemType];
        if (!expected || expected === t.tensor.data_type) continue;
        ctx.report({
          at: [...t.path, 'data_type'],
          message: `${t.label} is ${t.tensor.data_type} in the config but ${ONNX_TYPE_NAMES[m.elemType] ?? m.elemType} (${expected}) in the model`,
          fix: replaceFix(ctx.parse.locate([...t.path, 'data_type']), expected, `use data_type: ${expected}`, false),
        });
      }
      // A batch input is written in its data_type (TYPE_INT32 or TYPE_FP32) into the model input it targets.
      for (const t of batchInputTargets(ctx.config)) {
        const m = modelTensor(model.info, 'input', t.name);
        const index = Number(t.path[1]);
        const declared = batchInputs(ctx.config)[index]?.data_type;
        const type = declared ?? 'TYPE_INT32';
        if (!m || m.elemType === 0) continue;
        const expected = ONNX_TO_TRITON[m.elemType];
        if (!expected || expected === type) continue;
        ctx.report({
          at: declared ? ['batch_input', index, 'data_type'] : ['batch_input', index],
          message: `${t.label} is written as ${type}, but the model's input '${t.name}' is ${ONNX_TYPE_NAMES[m.elemType] ?? m.elemType} (${expected})`,
          fix: { description: expected === 'TYPE_INT32' || expected === 'TYPE_FP32' ? `use data_type: ${expected}` : 'export the model with an INT32 or FP32 input for it (batch inputs are written as one of those)', edits: [], safe: false },
        });
      }
    }
  },
};
