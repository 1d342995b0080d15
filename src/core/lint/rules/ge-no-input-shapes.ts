import { reportAtcProblems } from '../atc-problems.js';
import { onnxModels } from '../model-tensors.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_NO_INPUT_SHAPES',
  purpose: 'Checks that a GE model with an ONNX file lists its inputs (or sets graph.ge.inputShape), since gebe convert builds ATC\'s --input_shape from them; Triton\'s GE backend alone would read them from the ONNX model.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    // Only where there is something for gebe convert to compile.
    if (onnxModels(ctx).length > 0) reportAtcProblems(ctx, 'no-inputs');
  },
};
