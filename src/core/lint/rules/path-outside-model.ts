import path from 'node:path';
import { outsideMessage, resolveInside } from '../../repository/inside.js';
import { hint, type ConfigRule } from '../rule.js';
import { namedPaths } from '../named-paths.js';

export const rule: ConfigRule = {
  id: 'PATH_OUTSIDE_MODEL',
  purpose: 'Checks that every file a config names (default_model_filename, label_filename, warmup input_data_file) resolves, after symlinks, inside the model directory.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    const model = ctx.model!;
    for (const p of namedPaths(ctx.config)) {
      const bases = p.base === 'version' ? model.versions.map((v) => v.path) : [path.join(model.dir, p.base)];
      if (!bases.some((base) => isOutside(model.dir, base, p.value))) continue;
      ctx.report({ at: p.at, message: outsideMessage(p.field, p.value), fix: hint(`name a file inside ${model.display}/, relative to ${p.base === 'version' ? 'the version directory' : p.base === '.' ? 'the model directory' : `${p.base}/`}`) });
    }
  },
};

export function isOutside(modelDir: string, base: string, value: string): boolean {
  const r = resolveInside(modelDir, base, value);
  return !r.ok && r.reason === 'outside';
}
