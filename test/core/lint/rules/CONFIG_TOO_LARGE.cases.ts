import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: `name: "m"\nbackend: "ge"\n${'# a long comment line\n'.repeat(1000)}` }],
  invalid: [
    {
      name: 'a 5 MiB config',
      as: 'model',
      files: { 'config.pbtxt': `name: "m"\n${'#'.repeat(5 * 1024 * 1024)}\n`, '1/': '' },
      errors: [{ line: 1, column: 1, message: 'over the 4.0 MiB limit' }],
    },
  ],
} satisfies RuleCases;
