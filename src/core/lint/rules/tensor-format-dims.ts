import { tensors } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'TENSOR_FORMAT_DIMS',
  purpose: 'Checks that inputs declared FORMAT_NHWC or FORMAT_NCHW have exactly 3 dims (the batch dimension is not listed).',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    for (const t of tensors(ctx.config, 'input')) {
      const format = t.tensor.format;
      if (format !== 'FORMAT_NHWC' && format !== 'FORMAT_NCHW') continue;
      // Triton checks the dims clients send, not the reshape the model sees.
      const dims = t.tensor.dims ?? [];
      if (dims.length === 3) continue;
      ctx.report({
        at: [...t.path, 'format'],
        message: `${t.label} has format ${format} but ${dims.length} dims; image formats need exactly 3 dims (${format === 'FORMAT_NCHW' ? 'C, H, W' : 'H, W, C'})`,
        fix: hint('list 3 dims without the batch dimension, or use FORMAT_NONE'),
      });
    }
  },
};
