import { hint, type ModelRule } from '../rule.js';

export const rule: ModelRule = {
  id: 'PYTHON_MODEL_FILE_MISSING',
  purpose: 'Checks that every version directory of a Python-backend model holds its model.py (or its default_model_filename).',
  severity: 'error',
  fixable: false,
  scope: 'model',
  check(ctx) {
    if (!ctx.config || ctx.config.backend !== 'python') return;
    const file = ctx.config.default_model_filename || 'model.py';
    for (const v of ctx.model.versions) {
      if (v.files.includes(file)) continue;
      ctx.report({
        file: v.display,
        message: `version directory ${v.display} has no ${file}: the Python backend runs ${file} from each version directory (a class TritonPythonModel with execute(self, requests))`,
        fix: hint(`put the model's code in ${v.display}/${file}`),
      });
    }
  },
};
