import { hint, type ScanRule } from '../rule.js';

export const rule: ScanRule = {
  id: 'FILE_UNREADABLE',
  purpose: 'Checks that every file and directory in the repository can be read (permissions, dangling symlinks).',
  severity: 'error',
  fixable: false,
  scope: 'scan',
  check(ctx) {
    for (const p of ctx.target.problems) {
      if (p.kind !== 'unreadable') continue;
      ctx.report({ file: p.display, message: p.message, fix: hint('make the file readable by the user that runs Triton (e.g. chmod a+r), or remove it') });
    }
  },
};
