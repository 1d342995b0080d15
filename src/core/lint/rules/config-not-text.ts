import { hint, type ScanRule } from '../rule.js';

export const rule: ScanRule = {
  id: 'CONFIG_NOT_TEXT',
  purpose: 'Checks that config.pbtxt is a text file, not a binary file saved under that name.',
  severity: 'error',
  fixable: false,
  scope: 'scan',
  check(ctx) {
    for (const p of ctx.target.problems) {
      if (p.kind !== 'binary') continue;
      ctx.report({ file: p.display, message: p.message, fix: hint('write the config in protobuf text format (gebe init scaffolds one)') });
    }
  },
};
