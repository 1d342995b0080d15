import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [
    { config: 'name: "m"\nbackend: "ge"\n' },
    { config: 'name: "m"\nplatform: "tensorrt_plan"\n' },
    { name: 'Triton auto-completes the backend from model.py', config: 'name: "m"\nmax_batch_size: 8\n', files: { '1/model.py': 'import triton_python_backend_utils\n' } },
  ],
  invalid: [
    { config: 'name: "m"\nmax_batch_size: 8\n', errors: [{ line: 1, column: 7, message: "the config sets neither 'platform' nor 'backend'" }] },
    {
      name: 'a model directory whose files name no backend',
      config: 'name: "m"\nmax_batch_size: 8\n',
      files: { '1/resnet.onnx': 'not read' },
      errors: [{ line: 1, column: 7, message: 'no version directory holds a model file Triton could derive one from' }],
    },
  ],
} satisfies RuleCases;
