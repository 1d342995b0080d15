import type { RuleCases } from '../rule-tester.js';
import { DIGITS_CONFIG, digitsModel } from './models.js';

const ENSEMBLE = 'name: "m"\nplatform: "ensemble"\nmax_batch_size: 4\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 2 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]\n' +
  'ensemble_scheduling { step [ { model_name: "a" model_version: -1 input_map { key: "X" value: "X" } output_map { key: "Y" value: "Y" } } ] }\n';

export default {
  valid: [
    { config: DIGITS_CONFIG, files: { '1/model.onnx': digitsModel() } },
    { name: 'an ensemble whose version directory is empty (no model file)', config: ENSEMBLE, files: { '1/.gitkeep': '' } },
  ],
  invalid: [
    {
      name: 'the model file next to config.pbtxt instead of in 1/',
      config: DIGITS_CONFIG,
      files: { 'model.onnx': digitsModel() },
      errors: [{ file: '.', line: 1, column: 1, message: 'model m has no version directory' }],
    },
    {
      name: 'an ensemble without a version directory: told to create an empty one, not to move a model file',
      config: ENSEMBLE,
      files: { 'README.md': 'steps run elsewhere' },
      errors: [{ file: '.', line: 1, column: 1, message: /^ensemble m has no version directory: .*empty for an ensemble/ }],
    },
    {
      name: 'a specific policy that names no existing version',
      config: `${DIGITS_CONFIG}version_policy { specific { versions: [ 3 ] } }\n`,
      files: { '1/model.onnx': digitsModel() },
      errors: [{ line: 18, column: 1, message: 'the version policy of model m selects no available version (found: 1)' }],
    },
  ],
} satisfies RuleCases;
