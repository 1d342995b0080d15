import type { RuleCases } from '../rule-tester.js';

const config = (body: string) => `name: "m"
backend: "ge"
max_batch_size: 8
dynamic_batching {
  preserve_ordering: true
${body}}
`;

export default {
  valid: [
    { config: config('  default_queue_policy { timeout_action: REJECT default_timeout_microseconds: 1000 }\n') },
    { name: 'DELAY without a timeout never reorders', config: config('  default_queue_policy { timeout_action: DELAY }\n') },
  ],
  invalid: [
    {
      config: config('  priority_levels: 2\n  default_priority_level: 1\n'),
      errors: [{ line: 6, column: 20, message: "Only one priority level is allowed when 'preserve_ordering' is true" }],
    },
    {
      config: config('  default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 1000 }\n'),
      errors: [{ line: 6, column: 42, message: "Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true" }],
    },
  ],
} satisfies RuleCases;
