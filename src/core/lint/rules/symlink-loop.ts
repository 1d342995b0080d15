import { hint, type ScanRule } from '../rule.js';

export const rule: ScanRule = {
  id: 'SYMLINK_LOOP',
  purpose: 'Checks that no symbolic link in a model directory leads back into itself, which makes recursive model-file searches loop.',
  severity: 'error',
  fixable: false,
  scope: 'scan',
  check(ctx) {
    for (const p of ctx.target.problems) {
      if (p.kind !== 'symlink-loop') continue;
      ctx.report({ file: p.display, message: p.message, fix: hint('replace the symlink with the file it should point to, or point it outside the model directory') });
    }
  },
};
