import { hint, type ModelRule } from '../rule.js';

export const rule: ModelRule = {
  id: 'MODEL_FILE_INVALID',
  purpose: 'Checks that .onnx files in version directories parse as ONNX models and .om files start with a valid OM header.',
  severity: 'error',
  fixable: false,
  scope: 'model',
  check(ctx) {
    for (const v of ctx.model.versions) {
      for (const f of v.files) {
        const lower = f.toLowerCase();
        if (!lower.endsWith('.onnx') && !lower.endsWith('.om')) continue;
        const info = ctx.inspect(`${v.path}/${f}`);
        if (info.kind !== 'invalid') continue;
        const what = info.format === 'om' ? 'an Ascend offline model (.om)' : 'an ONNX model';
        ctx.report({
          file: `${v.display}/${f}`,
          message: `${v.display}/${f} is not ${what}: ${info.message}`,
          fix: hint(info.format === 'om' ? 'regenerate it with atc (or gebe convert)' : 're-export the model (e.g. torch.onnx.export) and copy it again; a truncated copy or a Git LFS pointer looks like this'),
        });
      }
    }
  },
};
