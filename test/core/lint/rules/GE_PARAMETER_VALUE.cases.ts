import type { RuleCases } from '../rule-tester.js';

const config = (key: string, value: string) => `name: "m"
backend: "ge"
parameters { key: "${key}" value: { string_value: "${value}" } }
`;

export default {
  valid: [
    { config: config('device_ids', '0,1') },
    { config: config('static_model', '1') },
    { config: config('profiling', 'dynamic') },
  ],
  invalid: [
    {
      name: 'device ids separated by semicolons',
      config: config('device_ids', '0;1'),
      errors: [{ line: 3, column: 55, message: `parameter 'device_ids' is "0;1", expected comma-separated device ids` }],
    },
    {
      name: 'static_model as a boolean word',
      config: config('static_model', 'true'),
      errors: [{ line: 3, column: 57, message: `parameter 'static_model' is "true", expected "0" (dynamic batch) or "1" (static shape)` }],
    },
  ],
} satisfies RuleCases;
