import { hint, type ConfigRule } from '../rule.js';
import { platformBackend } from '../helpers.js';

export const rule: ConfigRule = {
  id: 'PLATFORM_BACKEND_MISMATCH',
  purpose: "Checks that 'backend' agrees with 'platform' when both are set, and that an ensemble sets no backend.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const { platform, backend } = ctx.config;
    if (!platform || !backend) return;
    const expected = platformBackend(platform);
    if (expected === undefined || expected === backend) return;
    ctx.report({
      at: ['backend'],
      message: platform === 'ensemble'
        ? `an ensemble (platform "ensemble") has no backend, but the config sets backend '${backend}'`
        : `backend '${backend}' does not match platform '${platform}', which runs on backend '${expected}'`,
      fix: hint(platform === 'ensemble' ? 'remove the backend line' : `remove one of them: keep backend "${backend}" alone, or set backend "${expected}"`),
    });
  },
};
