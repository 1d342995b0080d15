import path from 'node:path';
import { inspectOnnxModel } from '../../executor/onnx-inspect.js';
import { onnxModels } from '../model-tensors.js';
import { hint, type ConfigRule } from '../rule.js';

/**
 * What `gebe serve` would refuse when it runs the model on the built-in cpu engine. The findings
 * come from the engine itself (CheckModel, the same check its loader refuses with, element types
 * its kernels refuse mid-graph included) and are worded by it, so validate and serve never
 * disagree. Without the native addon the rule has nothing to ask and stays silent.
 */
export const rule: ConfigRule = {
  id: 'ENGINE_UNSUPPORTED',
  purpose: 'Checks that the built-in cpu engine (what gebe serve, perf and infer run without an NPU) can run every operator, attribute value and element type of the ONNX model (element types its kernels refuse mid-graph included), by the check its loader refuses models with.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    for (const model of onnxModels(ctx)) {
      let findings: string[];
      try {
        findings = inspectOnnxModel(model.path).unsupportedFindings;
      } catch {
        continue; // unreadable models are MODEL_FILE_INVALID's; a missing addon leaves nothing to ask
      }
      for (const finding of findings) {
        ctx.report({
          message: `the cpu engine cannot run ${finding} in ${path.basename(model.path)}; gebe serve refuses the model at load, Triton's GE backend on an NPU may still run it`,
          fix: hint('re-export the model with supported operators and types (see docs/rules/ENGINE_UNSUPPORTED.md), or serve it on an NPU'),
        });
      }
    }
  },
};
