import { selectVersions } from '../../repository/versions.js';
import { hint, type ModelRule } from '../rule.js';

export const rule: ModelRule = {
  id: 'VERSION_POLICY_MISSING_VERSION',
  purpose: 'Checks that every version a specific version policy names has a version directory.',
  severity: 'warning',
  fixable: false,
  scope: 'model',
  check(ctx) {
    if (!ctx.config || ctx.model.versions.length === 0) return;
    const selection = selectVersions(ctx.config, ctx.model.versions);
    if (selection.kind !== 'specific' || selection.selected.length === 0) return;
    const wanted = (ctx.config.version_policy?.specific?.versions ?? []).map(Number);
    wanted.forEach((v, i) => {
      if (!selection.missing.includes(v)) return;
      ctx.report({
        at: ['version_policy', 'specific', 'versions', i],
        message: `version policy asks for version ${v} of model ${ctx.model.name}, but ${ctx.model.display}/${v}/ does not exist`,
        fix: hint(`add ${ctx.model.display}/${v}/ or remove ${v} from the policy`),
      });
    });
  },
};
