import { pythonSequenceRefusal } from '../../python-backend/sequences.js';
import { hint, type ConfigRule } from '../rule.js';

/**
 * What `gebe serve` refuses in a Python model's sequence_batching (control inputs, implicit state),
 * found by the check its loader refuses with, so validate and serve never disagree. Triton runs
 * such a model: a warning, as ENGINE_UNSUPPORTED is.
 */
export const rule: ConfigRule = {
  id: 'PYTHON_SEQUENCE_UNSUPPORTED',
  purpose: "Checks that a Python-backend model's sequence_batching asks for nothing gebe serve does not fill for Python models (control inputs, implicit state).",
  severity: 'warning',
  fixable: false,
  scope: 'config',
  check(ctx) {
    const refused = pythonSequenceRefusal(ctx.config);
    if (!refused) return;
    ctx.report({
      at: ['sequence_batching', refused.field],
      name: true,
      message: `${refused.message}; gebe serve refuses the model at load, Triton runs it`,
      fix: hint(refused.hint),
    });
  },
};
