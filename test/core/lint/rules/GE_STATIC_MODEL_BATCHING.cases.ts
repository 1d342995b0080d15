import type { RuleCases } from '../rule-tester.js';

const config = (mbs: number, value: string) => `name: "m"
backend: "ge"
max_batch_size: ${mbs}
parameters { key: "static_model" value: { string_value: "${value}" } }
`;

export default {
  valid: [{ config: config(8, '0') }, { name: 'a static model without batching', config: config(0, '1') }],
  invalid: [{ config: config(8, '1'), errors: [{ line: 4, column: 57, message: 'runs a merged batch as up to 8 sequential batch-1 calls' }] }],
} satisfies RuleCases;
