import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: 'name: "m"\nbackend: "ge"\n' }],
  invalid: [
    {
      name: 'a binary file saved as config.pbtxt',
      config: 'PK\u0003\u0004\u0000\u0000binary',
      errors: [{ line: 1, column: 1, message: 'is a binary file' }],
    },
  ],
} satisfies RuleCases;
