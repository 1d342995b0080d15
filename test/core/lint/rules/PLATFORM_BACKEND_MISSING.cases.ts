import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: 'name: "m"\nbackend: "ge"\n' }, { config: 'name: "m"\nplatform: "tensorrt_plan"\n' }],
  invalid: [{ config: 'name: "m"\nmax_batch_size: 8\n', errors: [{ line: 1, column: 7, message: "the config sets neither 'platform' nor 'backend'" }] }],
} satisfies RuleCases;
