import type { RuleCases } from '../rule-tester.js';

const config = (group: string, batching = '') => `name: "m"
backend: "ge"
max_batch_size: 8
instance_group [ ${group} ]
${batching}`;

export default {
  valid: [{ config: config('{ count: 128 }', 'dynamic_batching { priority_levels: 4 }\n') }],
  invalid: [
    {
      name: 'a million instances',
      config: config('{ count: 1000000 }'),
      errors: [{ line: 4, column: 27, message: 'the instance count (instance_group count, summed) is 1000000, over the limit of 128 instances per model' }],
    },
    {
      name: 'instances summed over groups, and too many priority levels',
      config: config('{ count: 100 }, { count: 100 }', 'dynamic_batching { priority_levels: 100000 }\n'),
      errors: [
        { line: 4, column: 16, message: 'is 200, over the limit of 128' },
        { line: 5, column: 37, message: 'dynamic_batching.priority_levels is 100000, over the limit of 1024' },
      ],
    },
    {
      name: 'an ensemble of 300 steps',
      config: `name: "m"\nplatform: "ensemble"\nensemble_scheduling {\n  step [ ${Array.from({ length: 300 }, () => '{ model_name: "a" }').join(', ')} ]\n}\n`,
      errors: [{ line: 4, column: 8, message: 'the number of ensemble_scheduling steps is 300, over the limit of 256' }],
    },
  ],
} satisfies RuleCases;
