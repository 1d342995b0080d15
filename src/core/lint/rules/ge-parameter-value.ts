import { isGe } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

const CHECKS: Record<string, { valid: RegExp; expected: string }> = {
  device_ids: { valid: /^\d+(,\d+)*$/, expected: 'comma-separated device ids such as "0" or "0,1"' },
  device_exec_blocks: { valid: /^[1-9]\d*$/, expected: 'a positive integer such as "1"' },
  instance_exec_blocks: { valid: /^[1-9]\d*$/, expected: 'a positive integer such as "1"' },
  static_model: { valid: /^[01]$/, expected: '"0" (dynamic batch) or "1" (static shape)' },
  dump_graph: { valid: /^[01]$/, expected: '"0" or "1"' },
  dump_data: { valid: /^[01]$/, expected: '"0" or "1"' },
  profiling: { valid: /^(true|false|dynamic)$/, expected: '"true", "false" or "dynamic"' },
};

export const rule: ConfigRule = {
  id: 'GE_PARAMETER_VALUE',
  purpose: 'Checks that the GE backend parameters (device_ids, static_model, dump_graph, dump_data, profiling, exec blocks, session./graph. options) have values the backend accepts.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isGe(ctx.config)) return;
    for (const [key, p] of Object.entries(ctx.config.parameters ?? {})) {
      const value = p?.string_value;
      const at = ['parameters', key];
      if (value === undefined || value === '') {
        ctx.report({ at, name: true, message: `parameter '${key}' has no string_value`, fix: hint(`write parameters { key: "${key}" value: { string_value: "..." } }`) });
        continue;
      }
      const check = CHECKS[key];
      if (check && !check.valid.test(value)) {
        ctx.report({ at: [...at, 'string_value'], message: `parameter '${key}' is "${value}", expected ${check.expected}`, fix: hint(`set ${key} to ${check.expected}`) });
      } else if (!check && value.trim() !== value) {
        ctx.report({ at: [...at, 'string_value'], message: `GE option '${key}' value "${value}" has leading or trailing spaces, which GE does not trim`, fix: hint('remove the spaces') });
      }
    }
  },
};
