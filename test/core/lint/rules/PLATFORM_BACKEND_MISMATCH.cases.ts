import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: 'name: "m"\nplatform: "onnxruntime_onnx"\nbackend: "onnxruntime"\n' }],
  invalid: [
    {
      name: 'an ONNX Runtime platform with the GE backend',
      config: 'name: "m"\nplatform: "onnxruntime_onnx"\nbackend: "ge"\n',
      errors: [{ line: 3, column: 10, message: "backend 'ge' does not match platform 'onnxruntime_onnx', which runs on backend 'onnxruntime'" }],
    },
  ],
} satisfies RuleCases;
