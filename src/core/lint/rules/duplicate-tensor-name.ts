import { tensors } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'DUPLICATE_TENSOR_NAME',
  purpose: 'Checks that no two inputs (or two outputs) share a name; Triton silently keeps the first.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    for (const io of ['input', 'output'] as const) {
      const seen = new Map<string, number>();
      for (const t of tensors(ctx.config, io)) {
        if (!t.tensor.name) continue;
        const first = seen.get(t.tensor.name);
        if (first === undefined) {
          seen.set(t.tensor.name, t.index);
          continue;
        }
        const firstLine = ctx.parse.locate([io, first, 'name'])?.start.line;
        ctx.report({
          at: [...t.path, 'name'],
          message: `${t.label} is declared twice${firstLine ? ` (first on line ${firstLine})` : ''}; Triton uses the first declaration and ignores this one`,
          fix: hint(`remove one of the two ${io}s named '${t.tensor.name}'`),
        });
      }
    }
  },
};
