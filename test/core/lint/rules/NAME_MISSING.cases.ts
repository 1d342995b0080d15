import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: 'name: "m"\nbackend: "ge"\n' }],
  invalid: [{ config: 'backend: "ge"\nmax_batch_size: 4\n', errors: [{ line: 1, column: 1, message: "the config does not set 'name'" }] }],
} satisfies RuleCases;
