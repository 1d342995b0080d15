import { isGe, parameter } from '../helpers.js';
import { parseInputShape } from '../ge-options.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_INPUT_SHAPE',
  purpose: 'Checks that graph.ge.inputShape is "name:d1,d2,...;..." with dims that are integers or -1, naming inputs the config declares.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isGe(ctx.config)) return;
    const text = parameter(ctx.config, 'graph.ge.inputShape');
    if (text === undefined || text === '') return;
    const at = ['parameters', 'graph.ge.inputShape', 'string_value'];
    const parsed = parseInputShape(text);
    if (!parsed.ok) {
      ctx.report({ at, message: `graph.ge.inputShape is malformed: ${parsed.message}`, fix: hint('write it as "input:-1,3,224,224" (several inputs separated by ;)') });
      return;
    }
    const names = new Set((ctx.config.input ?? []).map((t) => t.name));
    if (names.size === 0) return;
    for (const e of parsed.value) {
      if (names.has(e.name)) continue;
      ctx.report({ at, message: `graph.ge.inputShape names '${e.name}', which is not an input of this config (inputs: ${[...names].join(', ')})`, fix: hint('use the model input names') });
    }
  },
};
