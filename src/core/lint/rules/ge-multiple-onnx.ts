import { isGe } from '../helpers.js';
import { filesWithExtension } from '../model-files.js';
import { hint, type ModelRule } from '../rule.js';

export const rule: ModelRule = {
  id: 'GE_MULTIPLE_ONNX',
  purpose: 'Checks that a GE-backend version directory holds a single .onnx file, since the backend silently loads the first one it finds.',
  severity: 'warning',
  fixable: false,
  scope: 'model',
  check(ctx) {
    if (!ctx.config || !isGe(ctx.config)) return;
    for (const v of ctx.model.versions) {
      const onnx = filesWithExtension(v.files, '.onnx');
      if (onnx.length < 2) continue;
      ctx.report({
        file: `${v.display}/${onnx[1]}`,
        message: `version directory ${v.display} holds ${onnx.length} .onnx files (${onnx.join(', ')}); the GE backend loads whichever its directory search meets first`,
        fix: hint(`keep one .onnx in ${v.display} and move the others out of the model directory`),
      });
    }
  },
};
