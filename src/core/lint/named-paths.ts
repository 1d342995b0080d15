/**
 * The file paths a config names, with where each is relative to: PATH_OUTSIDE_MODEL checks them
 * all, and the rules that check one of them exists skip a path that leaves the model directory.
 */
import type { ConfigPath } from '../config/ast.js';
import type { ModelConfig } from '../config/model-config.js';

export interface NamedPath {
  field: string;
  value: string;
  at: ConfigPath;
  /** 'version': each version directory; otherwise a folder of the model directory ('.' itself). */
  base: 'version' | '.' | 'warmup';
}

export function namedPaths(config: ModelConfig): NamedPath[] {
  const out: NamedPath[] = [];
  if (config.default_model_filename) {
    out.push({ field: 'default_model_filename', value: config.default_model_filename, at: ['default_model_filename'], base: 'version' });
  }
  (config.output ?? []).forEach((t, i) => {
    if (t.label_filename) out.push({ field: 'label_filename', value: t.label_filename, at: ['output', i, 'label_filename'], base: '.' });
  });
  (config.model_warmup ?? []).forEach((w, i) => {
    for (const [input, spec] of Object.entries(w.inputs ?? {})) {
      const file = spec?.input_data_file;
      if (file) out.push({ field: 'input_data_file', value: file, at: ['model_warmup', i, 'inputs', input, 'input_data_file'], base: 'warmup' });
    }
  });
  return out;
}
