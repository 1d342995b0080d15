import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [
    { config: 'name: "m"\nbackend: "ge"\n' },
    { name: 'a custom backend', config: 'name: "m"\nbackend: "my_tokenizer"\n' },
  ],
  invalid: [
    { name: 'upper case (the same name: --fix applies it)', config: 'name: "m"\nbackend: "GE"\n', errors: [{ line: 2, column: 10, message: "backend 'GE' is not a backend Triton knows; did you mean 'ge'?" }], output: 'name: "m"\nbackend: "ge"\n' },
    { name: 'a separator too many (the same name)', config: 'name: "m"\nbackend: "onnx_runtime"\n', errors: [{ line: 2, column: 10, message: "did you mean 'onnxruntime'?" }], output: 'name: "m"\nbackend: "onnxruntime"\n' },
    { name: 'a misspelling (a guess: only a suggestion)', config: 'name: "m"\nbackend: "onnxruntim"\n', errors: [{ line: 2, column: 10, message: "did you mean 'onnxruntime'?" }], output: 'name: "m"\nbackend: "onnxruntim"\n' },
  ],
} satisfies RuleCases;
