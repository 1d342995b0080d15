import { hint, type ScanRule } from '../rule.js';

export const rule: ScanRule = {
  id: 'SYMLINK_OUTSIDE_REPOSITORY',
  purpose: 'Checks that no directory symlink in a model directory leads out of the repository and no file symlink out of its model directory: gebe follows neither (a link to / would make the search cover the whole file system, a link to a file outside would let a config read it).',
  severity: 'error',
  fixable: false,
  scope: 'scan',
  check(ctx) {
    for (const p of ctx.target.problems) {
      if (p.kind !== 'symlink-outside') continue;
      ctx.report({ file: p.display, message: p.message, fix: hint('copy the file or directory into the model directory, or link only inside the repository') });
    }
  },
};
