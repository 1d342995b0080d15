import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ name: 'non-ASCII text encoded as UTF-8', config: 'name: "m"\nbackend: "ge"\n# café\n' }],
  invalid: [
    {
      name: 'a Latin-1 byte (0xE9, é) in a comment',
      as: 'model',
      files: { 'config.pbtxt': Buffer.concat([Buffer.from('name: "m"\nbackend: "ge"\n# caf'), Buffer.from([0xe9]), Buffer.from('\n')]), '1/': '' },
      errors: [{ line: 3, column: 6, message: 'is not valid UTF-8' }],
    },
  ],
} satisfies RuleCases;
