import type { RuleCases } from '../rule-tester.js';

const config = (sizes: string) => `name: "m"
backend: "ge"
max_batch_size: 8
sequence_batching {
  oldest { max_candidate_sequences: 4 preferred_batch_size: ${sizes} }
}
`;

export default {
  valid: [{ config: config('[ 2, 8 ]') }],
  invalid: [{ config: config('[ 2, 16 ]'), errors: [{ line: 5, column: 66, message: 'sequence batching preferred batch size must be <= max batch size: 16 > max_batch_size 8' }] }],
} satisfies RuleCases;
