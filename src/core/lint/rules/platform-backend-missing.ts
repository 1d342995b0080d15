import { hint, type ConfigRule } from '../rule.js';

/** Default model file names from which Triton's auto-complete derives a backend. */
const AUTODETECTED = ['model.plan', 'model.onnx', 'model.pt', 'model.savedmodel', 'model.graphdef', 'model.py'];

export const rule: ConfigRule = {
  id: 'PLATFORM_BACKEND_MISSING',
  purpose: "Checks that the config sets 'platform' or 'backend', unless Triton can derive the backend from a default model file name.",
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const { platform, backend } = ctx.config;
    if (backend || platform) return;
    const derivable = ctx.model?.versions.some((v) => v.files.some((f) => AUTODETECTED.includes(f.split('/')[0]!)));
    if (derivable) return; // Triton's auto-complete picks the backend from the file (never "ge", though)
    ctx.report({
      at: ['name'],
      message: ctx.model
        ? `the config sets neither 'platform' nor 'backend', and no version directory holds a model file Triton could derive one from`
        : `the config sets neither 'platform' nor 'backend': Triton cannot tell which backend runs this model (unless it auto-completes one from a model file)`,
      fix: hint('add backend: "ge" for the Ascend GE backend (or the platform of your model, e.g. platform: "onnxruntime_onnx")'),
    });
  },
};
