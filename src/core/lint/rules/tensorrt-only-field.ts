import { backendOf, tensors } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'TENSORRT_ONLY_FIELD',
  purpose: 'Checks that is_shape_tensor and is_non_linear_format_io, which only TensorRT supports, are not used with other backends.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const backend = backendOf(ctx.config);
    if (backend === 'tensorrt' || backend === '') return;
    for (const t of tensors(ctx.config)) {
      for (const field of ['is_shape_tensor', 'is_non_linear_format_io'] as const) {
        if (t.tensor[field] !== true) continue;
        ctx.report({
          at: [...t.path, field],
          message: `${t.label} sets ${field}, which only the TensorRT backend supports (this model uses backend '${backend}')`,
          fix: hint(`remove ${field}`),
        });
      }
    }
  },
};
