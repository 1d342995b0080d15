import type { RuleCases } from '../rule-tester.js';

const config = (mbs: number, preferred: string) => `name: "m"
backend: "ge"
max_batch_size: ${mbs}
dynamic_batching {
  preferred_batch_size: ${preferred}
  max_queue_delay_microseconds: 100
}
`;

export default {
  valid: [{ config: config(16, '[ 4, 16 ]') }],
  invalid: [
    {
      config: config(16, '[ 0, 32 ]'),
      errors: [
        { line: 5, column: 27, message: 'dynamic batching preferred size must be positive' },
        { line: 5, column: 30, message: 'dynamic batching preferred size must be <= max batch size: 32 > max_batch_size 16' },
      ],
    },
    {
      name: 'preferred sizes on a model without batching',
      config: config(0, '[ 4 ]'),
      errors: [{ line: 5, column: 27, message: 'preferred size 4 is set but max_batch_size is 0' }],
    },
  ],
} satisfies RuleCases;
