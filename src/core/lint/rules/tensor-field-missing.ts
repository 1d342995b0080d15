import { tensors } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'TENSOR_FIELD_MISSING',
  purpose: "Checks that every input and output sets 'name', 'data_type' and 'dims'.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    for (const t of tensors(ctx.config)) {
      if (!t.tensor.name) {
        ctx.report({ at: t.path, message: `model ${t.io} must specify 'name'`, fix: hint(`add name: "<tensor name from the model>" to this ${t.io}`) });
        continue;
      }
      if (!t.tensor.data_type || t.tensor.data_type === 'TYPE_INVALID') {
        ctx.report({ at: t.path, message: `${t.label} must specify 'data_type'`, fix: hint('add data_type, e.g. data_type: TYPE_FP32') });
      }
      // Triton only accepts dims-less tensors when a reshape gives the shape (an empty-dims scalar is not allowed).
      if ((t.tensor.dims ?? []).length === 0 && !t.tensor.reshape) {
        ctx.report({ at: t.path, message: `${t.label} must specify 'dims'`, fix: hint('add dims, e.g. dims: [ 3, 224, 224 ] (without the batch dimension when max_batch_size > 0)') });
      }
    }
  },
};
