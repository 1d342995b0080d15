import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: 'name: "m"\nplatform: "onnxruntime_onnx"\n' }],
  invalid: [
    {
      name: 'a backend name given as platform',
      config: 'name: "m"\nplatform: "onnxruntime"\n',
      errors: [{ line: 2, column: 11, message: "unexpected platform type 'onnxruntime'; did you mean 'onnxruntime_onnx'?" }],
      output: 'name: "m"\nplatform: "onnxruntime"\n',
    },
    {
      name: 'the same name in another case (--fix applies it)',
      config: 'name: "m"\nplatform: "ONNXRuntime_ONNX"\n',
      errors: [{ line: 2, column: 11, message: "did you mean 'onnxruntime_onnx'?" }],
      output: 'name: "m"\nplatform: "onnxruntime_onnx"\n',
    },
  ],
} satisfies RuleCases;
