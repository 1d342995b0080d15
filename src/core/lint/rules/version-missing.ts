import { selectVersions } from '../../repository/versions.js';
import { isEnsemble } from '../helpers.js';
import { hint, type ModelRule } from '../rule.js';

export const rule: ModelRule = {
  id: 'VERSION_MISSING',
  purpose: 'Checks that a model has at least one version directory that its version policy selects.',
  severity: 'error',
  fixable: false,
  scope: 'model',
  check(ctx) {
    if (!ctx.model.config) return; // CONFIG_MISSING says it
    const available = ctx.model.versions;
    if (available.length === 0 && ctx.config && isEnsemble(ctx.config)) {
      // An ensemble has no model file, but Triton still reads its versions from directories.
      ctx.report({
        file: ctx.model.display,
        message: `ensemble ${ctx.model.name} has no version directory: Triton serves an ensemble's versions from <model>/<version>/, empty for an ensemble (e.g. ${ctx.model.display}/1/)`,
        fix: hint(`create the empty directory ${ctx.model.display}/1/ (add a .gitkeep to keep it in git)`),
      });
      return;
    }
    if (available.length === 0) {
      ctx.report({
        file: ctx.model.display,
        message: `model ${ctx.model.name} has no version directory: Triton loads models from <model>/<version>/ (e.g. ${ctx.model.display}/1/)`,
        fix: hint(`move the model file into ${ctx.model.display}/1/`),
      });
      return;
    }
    if (!ctx.config) return;
    const selection = selectVersions(ctx.config, available);
    if (selection.selected.length > 0) return;
    ctx.report({
      at: ['version_policy'],
      name: true,
      message: `the version policy of model ${ctx.model.name} selects no available version (found: ${available.map((v) => v.name).join(', ')})`,
      fix: hint('list existing versions in version_policy, or use latest { num_versions: 1 }'),
    });
  },
};
