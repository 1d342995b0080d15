import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: 'name: "m"\nbackend: "ge"\nmax_batch_size: 8\ndynamic_batching {\n  preferred_batch_size: [ 4, 8 ]\n  max_queue_delay_microseconds: 100\n}\n' }],
  invalid: [
    {
      config: 'name: "m"\nbackend: "ge"\nmax_batch_size: 8\ndynamic_batching {\n  preferred_batch_size: [ 4, 8 ]\n}\n',
      errors: [{ line: 5, column: 3, message: 'preferred_batch_size is set without max_queue_delay_microseconds' }],
    },
  ],
} satisfies RuleCases;
