import { hint, type ScanRule } from '../rule.js';

export const rule: ScanRule = {
  id: 'CONFIG_TOO_LARGE',
  purpose: 'Checks that config.pbtxt is of a plausible size for a model configuration (at most 4 MiB).',
  severity: 'error',
  fixable: false,
  scope: 'scan',
  check(ctx) {
    for (const p of ctx.target.problems) {
      if (p.kind !== 'too-large') continue;
      ctx.report({ file: p.display, message: p.message, fix: hint('keep only the model configuration in config.pbtxt; model weights belong in the version directory') });
    }
  },
};
