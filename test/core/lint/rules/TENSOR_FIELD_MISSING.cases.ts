import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: 'name: "m"\nbackend: "ge"\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n' }],
  invalid: [
    {
      config: 'name: "m"\nbackend: "ge"\ninput [\n  { name: "input" dims: [ 2, -1 ] },\n  { name: "mask" data_type: TYPE_BOOL }\n]\n',
      errors: [
        { line: 4, column: 3, message: "model input 'input' must specify 'data_type'" },
        { line: 5, column: 3, message: "model input 'mask' must specify 'dims'" },
      ],
    },
  ],
} satisfies RuleCases;
