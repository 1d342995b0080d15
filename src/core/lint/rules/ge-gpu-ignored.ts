import { deleteFieldEdit, isGe } from '../helpers.js';
import type { Fix } from '../../diagnostic.js';
import type { ConfigContext, ConfigRule } from '../rule.js';

function deleteFix(ctx: ConfigContext, path: Array<string | number>, description: string): Fix | undefined {
  const name = ctx.parse.locate(path, { name: true });
  const value = ctx.parse.locate(path);
  if (!name || !value) return undefined;
  return { description, safe: true, edits: [deleteFieldEdit(ctx.text, name, value)] };
}

export const rule: ConfigRule = {
  id: 'GE_GPU_IGNORED',
  purpose: "Checks that GE-backend instance groups do not rely on kind KIND_GPU or 'gpus', which the GE backend ignores.",
  severity: 'warning',
  // Deleting settings the backend ignores leaves what runs unchanged, and spares Triton's core
  // looking for CUDA GPUs an Ascend host does not have.
  fixable: true,
  scope: 'config',
  check(ctx) {
    if (!isGe(ctx.config)) return;
    (ctx.config.instance_group ?? []).forEach((g, i) => {
      if ((g.gpus ?? []).length > 0) {
        ctx.report({
          at: ['instance_group', i, 'gpus'],
          name: true,
          message: `the GE backend ignores 'gpus'; NPUs are chosen with parameters device_ids`,
          fix: deleteFix(ctx, ['instance_group', i, 'gpus'], 'remove gpus (choose NPUs with parameters { key: "device_ids" value: { string_value: "0" } })'),
        });
      }
      if (g.kind === 'KIND_GPU') {
        ctx.report({
          at: ['instance_group', i, 'kind'],
          message: `the GE backend ignores kind KIND_GPU, and Triton itself then looks for CUDA GPUs; the model runs on the NPUs in parameters device_ids`,
          fix: deleteFix(ctx, ['instance_group', i, 'kind'], 'remove kind: KIND_GPU'),
        });
      }
    });
  },
};
