import { tensors } from '../helpers.js';
import { isOutside } from './path-outside-model.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'LABEL_FILE_MISSING',
  purpose: "Checks that every output's label_filename exists in the model directory, where Triton reads it at load time.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    const model = ctx.model;
    if (!model) return; // a config alone has no directory to look in
    for (const t of tensors(ctx.config, 'output')) {
      const file = t.tensor.label_filename;
      if (!file || model.files.includes(file) || isOutside(model.dir, model.dir, file)) continue; // PATH_OUTSIDE_MODEL reports those
      const elsewhere = model.files.find((f) => f.endsWith(`/${file}`));
      ctx.report({
        at: [...t.path, 'label_filename'],
        message: `${t.label} names label file ${model.display}/${file}, which does not exist${elsewhere ? ` (there is ${model.display}/${elsewhere}: labels live next to config.pbtxt, not in a version directory)` : ''}`,
        fix: hint(elsewhere ? `move ${elsewhere} to ${model.display}/${file}` : `add ${model.display}/${file} (one label per line) or remove label_filename`),
      });
    }
  },
};
