import { hint, type ScanRule } from '../rule.js';

export const rule: ScanRule = {
  id: 'WALK_LIMIT',
  purpose: 'Checks that a model directory is small enough to search: at most 32 directory levels deep and 100,000 entries, beyond which the search stops.',
  severity: 'error',
  fixable: false,
  scope: 'scan',
  check(ctx) {
    for (const p of ctx.target.problems) {
      if (p.kind !== 'walk-limit') continue;
      ctx.report({ file: p.display, message: p.message, fix: hint('keep only the config, the version directories and their model files in the model directory') });
    }
  },
};
