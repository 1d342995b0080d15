import { isGe } from '../helpers.js';
import { filesWithExtension } from '../model-files.js';
import { hint, type ModelRule } from '../rule.js';

export const rule: ModelRule = {
  id: 'GE_MODEL_FILE_MISSING',
  purpose: 'Checks that every version directory of a GE-backend model holds an .onnx (or .pb) model file.',
  severity: 'error',
  fixable: false,
  scope: 'model',
  check(ctx) {
    if (!ctx.config || !isGe(ctx.config)) return;
    for (const v of ctx.model.versions) {
      const usable = filesWithExtension(v.files, '.onnx').length + filesWithExtension(v.files, '.pb').length;
      if (usable > 0 || filesWithExtension(v.files, '.om').length > 0) continue; // GE_OM_ONLY covers .om-only
      ctx.report({
        file: v.display,
        message: `version directory ${v.display} has no model file: the GE backend loads the first .onnx (or .pb) it finds there`,
        fix: hint(`put the model in ${v.display}/model.onnx`),
      });
    }
  },
};
