import type { RuleCases } from '../rule-tester.js';
import { digitsModel } from './models.js';

const model = { '1/model.onnx': digitsModel() };

export default {
  valid: [
    { name: 'inputs listed', config: 'name: "m"\nbackend: "ge"\nmax_batch_size: 0\ninput [ { name: "image" data_type: TYPE_FP32 dims: [ -1, 1, 28, 28 ] } ]\nparameters { key: "graph.ge.inputShape" value: { string_value: "image:1,1,28,28" } }\n', files: model },
    { name: 'no ONNX file: nothing for gebe convert to compile', config: 'name: "m"\nbackend: "ge"\nmax_batch_size: 0\n', files: { '1/model.om': 'IMOD' } },
  ],
  invalid: [
    {
      name: 'no inputs: Triton would fill them in from the ONNX model, gebe convert cannot',
      config: 'name: "m"\nbackend: "ge"\nmax_batch_size: 0\n',
      files: model,
      errors: [{ line: 1, column: 7, message: 'the config has no input entries, so the input shapes for ATC are unknown' }],
    },
  ],
} satisfies RuleCases;
