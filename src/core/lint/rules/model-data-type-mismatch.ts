import { ONNX_TO_TRITON, ONNX_TYPE_NAMES } from '../../model/onnx.js';
import { replaceFix, tensors } from '../helpers.js';
import { modelTensor, onnxModels } from '../model-tensors.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'MODEL_DATA_TYPE_MISMATCH',
  purpose: 'Checks that every config input and output has the data type of the ONNX tensor it names.',
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
    }
  },
};
