import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: 'name: "m"\nbackend: "ge"\nmax_batch_size: 0\n' }],
  invalid: [{ config: 'name: "m"\nbackend: "ge"\nmax_batch_size: -1\n', errors: [{ line: 3, column: 17, message: "'max_batch_size' must be non-negative value, got -1" }] }],
} satisfies RuleCases;
