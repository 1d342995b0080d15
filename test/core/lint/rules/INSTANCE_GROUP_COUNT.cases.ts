import type { RuleCases } from '../rule-tester.js';

const config = (count: string) => `name: "m"
backend: "ge"
instance_group [ { count: ${count} } ]
`;

export default {
  valid: [{ config: config('2') }],
  invalid: [{ config: config('0'), errors: [{ line: 3, column: 27, message: "instance group m_0 of model m must specify 'count' >= 1, got 0" }] }],
} satisfies RuleCases;
