import { isGe } from '../helpers.js';
import { filesWithExtension } from '../model-files.js';
import { hint, type ModelRule } from '../rule.js';

export const rule: ModelRule = {
  id: 'GE_OM_ONLY',
  purpose: "Checks that a GE-backend version directory does not hold only an .om offline model, which Triton's GE backend cannot load.",
  severity: 'error',
  fixable: false,
  scope: 'model',
  check(ctx) {
    if (!ctx.config || !isGe(ctx.config)) return;
    for (const v of ctx.model.versions) {
      const oms = filesWithExtension(v.files, '.om');
      if (oms.length === 0 || filesWithExtension(v.files, '.onnx').length + filesWithExtension(v.files, '.pb').length > 0) continue;
      ctx.report({
        file: `${v.display}/${oms[0]}`,
        message: `version directory ${v.display} holds only ${oms.join(', ')}: Triton's GE backend loads .onnx or .pb models, not .om offline models (gebe serve can run an .om with its ascend engine)`,
        fix: hint(`add the source model as ${v.display}/model.onnx for Triton, or serve the .om with gebe serve`),
      });
    }
  },
};
