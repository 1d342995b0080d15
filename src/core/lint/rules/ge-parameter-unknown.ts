import { closest, isGe } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

export const GE_PARAMETER_KEYS = ['device_ids', 'device_exec_blocks', 'instance_exec_blocks', 'static_model', 'dump_graph', 'dump_data', 'profiling'];

export const rule: ConfigRule = {
  id: 'GE_PARAMETER_UNKNOWN',
  purpose: 'Checks that every parameters key of a GE-backend model is one the backend reads (or a session./graph. GE option), since the backend ignores the rest.',
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isGe(ctx.config)) return;
    for (const key of Object.keys(ctx.config.parameters ?? {})) {
      if (GE_PARAMETER_KEYS.includes(key) || /^(session|graph)\.\S+$/.test(key)) continue;
      const suggestion = closest(key, [...GE_PARAMETER_KEYS, 'graph.ge.inputShape', 'graph.ge.dynamicDims', 'graph.ge.dynamicNodeType']);
      ctx.report({
        at: ['parameters', key],
        name: true,
        message: `the GE backend ignores parameter '${key}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
        fix: hint(suggestion ? `rename it to '${suggestion}'` : `use one of ${GE_PARAMETER_KEYS.join(', ')}, or a session.* / graph.* GE option`),
      });
    }
  },
};
