import path from 'node:path';
import { hint, type ConfigRule } from '../rule.js';
import { isOutside } from './path-outside-model.js';

export const rule: ConfigRule = {
  id: 'WARMUP_DATA_FILE_MISSING',
  purpose: 'Checks that every model_warmup input_data_file exists in the model\'s warmup/ folder.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    const model = ctx.model;
    if (!model) return; // a config alone has no warmup folder to look in
    const present = new Set(model.warmupFiles);
    (ctx.config.model_warmup ?? []).forEach((w, i) => {
      for (const [input, spec] of Object.entries(w.inputs ?? {})) {
        const file = spec?.input_data_file;
        if (!file || present.has(file) || isOutside(model.dir, path.join(model.dir, 'warmup'), file)) continue; // PATH_OUTSIDE_MODEL reports those
        ctx.report({
          at: ['model_warmup', i, 'inputs', input, 'input_data_file'],
          message: `warmup '${w.name ?? ''}' reads input '${input}' from ${model.display}/warmup/${file}, which does not exist`,
          fix: hint(`create ${model.display}/warmup/${file} (raw little-endian tensor bytes), or use zero_data: true / random_data: true`),
        });
      }
    });
  },
};
