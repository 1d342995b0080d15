import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [
    { config: 'name: "m"\nbackend: "ge"\n' },
    { name: 'a custom backend', config: 'name: "m"\nbackend: "my_tokenizer"\n' },
  ],
  invalid: [
    { name: 'upper case', config: 'name: "m"\nbackend: "GE"\n', errors: [{ line: 2, column: 10, message: "backend 'GE' is not a backend Triton knows; did you mean 'ge'?" }] },
    { name: 'a misspelling', config: 'name: "m"\nbackend: "onnx_runtime"\n', errors: [{ line: 2, column: 10, message: "did you mean 'onnxruntime'?" }] },
  ],
} satisfies RuleCases;
