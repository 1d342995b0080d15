import type { RuleCases } from '../rule-tester.js';

const config = (body: string) => `name: "m"
backend: "ge"
max_batch_size: 8
dynamic_batching {
  priority_levels: 3
${body}}
`;

export default {
  valid: [{ config: config('  default_priority_level: 2\n  priority_queue_policy { key: 1 value: { max_queue_size: 4 } }\n') }],
  invalid: [
    { name: 'no default level', config: config(''), errors: [{ line: 5, column: 20, message: 'default priority level must be in range [1, 3], got 0 (not set)' }] },
    {
      name: 'a policy for level 4 of 3',
      config: config('  default_priority_level: 2\n  priority_queue_policy { key: 4 value: { max_queue_size: 4 } }\n'),
      errors: [{ line: 7, column: 32, message: 'priority queue policy must have priority level in range [1, 3], got key 4' }],
    },
  ],
} satisfies RuleCases;
