import type { RuleCases } from '../rule-tester.js';

const config = (mbs: number, dims: string, reshape: string) => `name: "m"
backend: "ge"
max_batch_size: ${mbs}
input [
  {
    name: "input"
    data_type: TYPE_FP32
    dims: ${dims}
    reshape { shape: ${reshape} }
  }
]
`;

export default {
  valid: [
    { name: 'same element count', config: config(4, '[ 2, 3 ]', '[ 6 ]') },
    { name: 'dims [1] may become a scalar when batching', config: config(4, '[ 1 ]', '[ ]') },
    { name: 'variable dims that line up', config: config(0, '[ 2, -1 ]', '[ 2, 1, -1 ]') },
  ],
  invalid: [
    {
      name: '[1, 3, 2] holds 6 elements, [5] holds 5',
      config: config(4, '[ 1, 3, 2 ]', '[ 5 ]'),
      errors: [{ line: 9, column: 5, message: "model input 'input' has different size for dims and reshape" }],
    },
    {
      name: 'one variable dim in dims, two in the reshape',
      config: config(0, '[ 2, -1 ]', '[ 2, -1, -1 ]'),
      errors: [{ line: 9, column: 5, message: "model input 'input' has different number of variable-size dimensions for dims and reshape" }],
    },
    {
      name: 'an empty reshape in a model without batching',
      config: config(0, '[ 1 ]', '[ ]'),
      errors: [{ line: 9, column: 5, message: "model input 'input' cannot have empty reshape for non-batching model as scalar tensors are not supported" }],
    },
  ],
} satisfies RuleCases;
