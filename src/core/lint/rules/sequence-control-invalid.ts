import { hint, type ConfigRule } from '../rule.js';

interface Control {
  kind?: string;
  int32_false_true?: number[];
  fp32_false_true?: number[];
  bool_false_true?: boolean[];
  data_type?: string;
}
interface ControlInput {
  name?: string;
  control?: Control[];
}

const BOOLEAN_KINDS = new Set(['CONTROL_SEQUENCE_START', 'CONTROL_SEQUENCE_END', 'CONTROL_SEQUENCE_READY']);
const CORRID_TYPES = new Set(['TYPE_UINT64', 'TYPE_INT64', 'TYPE_UINT32', 'TYPE_INT32', 'TYPE_STRING']);

export const rule: ConfigRule = {
  id: 'SEQUENCE_CONTROL_INVALID',
  purpose: 'Checks that sequence-batching controls name each kind once, give each tensor one kind, and carry the false/true values or CORRID type they need.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const seq = ctx.config.sequence_batching as { control_input?: ControlInput[] } | undefined;
    if (!seq) return;
    const kindSeen = new Set<string>();
    // Kinds per tensor name across all control inputs: one tensor may carry only one kind.
    const kindsByTensor = new Map<string, Set<string>>();
    const reportedTensors = new Set<string>();
    (seq.control_input ?? []).forEach((ci, i) => {
      const at = ['sequence_batching', 'control_input', i];
      const tensorName = ci.name ?? '';
      const kinds = kindsByTensor.get(tensorName) ?? new Set<string>();
      kindsByTensor.set(tensorName, kinds);
      (ci.control ?? []).forEach((c, k) => {
        const kind = c.kind ?? 'CONTROL_SEQUENCE_START';
        const cat = [...at, 'control', k];
        if (kindSeen.has(kind)) {
          ctx.report({ at: cat, message: `sequence batching specifies multiple ${kind} tensors`, fix: hint(`keep one control of kind ${kind}`) });
        }
        kindSeen.add(kind);
        kinds.add(kind);
        if (BOOLEAN_KINDS.has(kind)) {
          const given = [c.int32_false_true, c.fp32_false_true, c.bool_false_true].filter((v) => v !== undefined && v.length > 0);
          if (given.length !== 1) {
            ctx.report({
              at: cat,
              message: `sequence batching must specify either 'int32_false_true', 'fp32_false_true' or 'bool_false_true' for ${kind}`,
              fix: hint('add exactly one of them, e.g. int32_false_true: [ 0, 1 ]'),
            });
          } else if (given[0]!.length !== 2) {
            ctx.report({ at: cat, message: `the false/true values for ${kind} must be exactly two values, got ${given[0]!.length}`, fix: hint('list the false value then the true value, e.g. [ 0, 1 ]') });
          }
        } else if (kind === 'CONTROL_SEQUENCE_CORRID') {
          if (!c.data_type || !CORRID_TYPES.has(c.data_type)) {
            ctx.report({
              at: cat,
              message: `sequence batching CONTROL_SEQUENCE_CORRID must specify data_type TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 or TYPE_STRING${c.data_type ? `, got ${c.data_type}` : ''}`,
              fix: hint('add data_type: TYPE_UINT64'),
            });
          }
        }
      });
      if (kinds.size > 1 && !reportedTensors.has(tensorName)) {
        reportedTensors.add(tensorName);
        ctx.report({
          at: [...at, 'name'],
          message: `sequence batching control tensor '${ci.name ?? ''}' is specified for multiple control kinds`,
          fix: hint('give each control kind its own tensor name'),
        });
      }
    });
  },
};
