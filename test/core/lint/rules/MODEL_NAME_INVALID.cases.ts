import type { RuleCases } from '../rule-tester.js';

export default {
  valid: [{ config: 'name: "resnet50.v2"\nbackend: "ge"\n' }],
  invalid: [
    { name: 'a path as a name', config: 'name: "models/resnet50"\nbackend: "ge"\n', errors: [{ line: 1, column: 7, message: 'model names must not contain ".." or "/"' }] },
  ],
} satisfies RuleCases;
