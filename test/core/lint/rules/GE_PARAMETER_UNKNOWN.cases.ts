import type { RuleCases } from '../rule-tester.js';

const config = (key: string) => `name: "m"
backend: "ge"
parameters { key: "${key}" value: { string_value: "0" } }
`;

export default {
  valid: [
    { config: config('device_ids') },
    { name: 'a GE session option', config: config('session.ge.exec.precision_mode_v2') },
  ],
  invalid: [
    {
      name: 'device_id instead of device_ids',
      config: config('device_id'),
      errors: [{ line: 3, column: 19, message: "the GE backend ignores parameter 'device_id'; did you mean 'device_ids'?" }],
    },
  ],
} satisfies RuleCases;
