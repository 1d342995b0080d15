import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'PLATFORM_BACKEND_MISSING',
  purpose: "Checks that the config sets 'platform' or 'backend', and that only ensembles go without a backend.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const { platform, backend } = ctx.config;
    if (backend || platform) return;
    ctx.report({
      at: ['name'],
      message: `the config sets neither 'platform' nor 'backend': Triton cannot tell which backend runs this model`,
      fix: hint('add backend: "ge" for the Ascend GE backend (or the platform of your model, e.g. platform: "onnxruntime_onnx")'),
    });
  },
};
