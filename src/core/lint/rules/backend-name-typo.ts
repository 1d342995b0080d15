import { levenshtein, replaceFix } from '../helpers.js';
import type { ConfigRule } from '../rule.js';

/** Backends Triton ships or that gebe targets; custom backends may have any other name. */
const KNOWN_BACKENDS = ['ge', 'onnxruntime', 'tensorrt', 'pytorch', 'tensorflow', 'python', 'openvino', 'fil', 'dali', 'vllm', 'tensorrtllm'];

export const rule: ConfigRule = {
  id: 'BACKEND_NAME_TYPO',
  purpose: "Checks that 'backend' is not a near miss of a known backend name (\"GE\", \"onnx_runtime\"), which Triton would look for as a separate, missing library.",
  severity: 'warning',
  fixable: true,
  scope: 'config',
  check(ctx) {
    const backend = ctx.config.backend;
    if (!backend || KNOWN_BACKENDS.includes(backend)) return;
    // Another case or separators ("GE", "onnx_runtime") is the same name, fixed by --fix; a near miss is a guess.
    const respelled = KNOWN_BACKENDS.find((k) => k === backend.toLowerCase() || k === backend.toLowerCase().replace(/[_-]/g, ''));
    const near = respelled ?? KNOWN_BACKENDS.find((k) => k.length > 3 && levenshtein(k, backend.toLowerCase()) <= 2);
    if (!near) return;
    ctx.report({
      at: ['backend'],
      message: `backend '${backend}' is not a backend Triton knows; did you mean '${near}'? Triton would look for a library named libtriton_${backend}.so`,
      fix: replaceFix(ctx.parse.locate(['backend']), JSON.stringify(near), `use backend: "${near}"`, near === respelled),
    });
  },
};
