/**
 * Triton's load-time checks of an ensemble against its step models (ensemble_utils.cc wording).
 * The step models here are their served metadata only: checkEnsemble reads nothing else.
 */
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import type { LoadedModel, TensorMetadata } from '../../../src/core/executor/types.js';
import { checkEnsemble } from '../../../src/core/ensemble/check.js';
import { ensemblePlan } from '../../../src/core/ensemble/plan.js';

const t = (name: string, shape: number[], datatype: TensorMetadata['datatype'] = 'FP32'): TensorMetadata => ({ name, datatype, shape });
const model = (name: string, maxBatchSize: number, inputs: TensorMetadata[], outputs: TensorMetadata[], optional: string[] = []) =>
  ({ name, maxBatchSize, inputs, outputs, optionalInputs: new Set(optional) }) as unknown as LoadedModel;
const ens = (steps: Array<{ model: string; inputs: Record<string, string>; outputs: Record<string, string> }>, mbs = 4, dims = [2]): ModelConfig => ({
  name: 'E', platform: 'ensemble', max_batch_size: mbs,
  input: [{ name: 'X', data_type: 'TYPE_FP32', dims }], output: [{ name: 'Y', data_type: 'TYPE_FP32', dims }],
  ensemble_scheduling: { step: steps.map((s) => ({ model_name: s.model, model_version: -1, input_map: s.inputs, output_map: s.outputs })) },
});
const check = (config: ModelConfig, models: LoadedModel[]) => () => checkEnsemble(config, ensemblePlan(config), models);
const ident = model('M', 4, [t('IN', [-1, 2])], [t('OUT', [-1, 2])]);
const oneStep = (inputs: Record<string, string> = { IN: 'X' }, outputs: Record<string, string> = { OUT: 'Y' }) => [{ model: 'M', inputs, outputs }];

describe('checkEnsemble', () => {
  it('accepts a consistent ensemble, and a non-batching step whose full shape matches', () => {
    expect(check(ens(oneStep()), [ident])).not.toThrow();
    expect(check(ens(oneStep()), [model('M', 0, [t('IN', [2])], [t('OUT', [2])])])).not.toThrow();
    expect(check(ens(oneStep(), 0, [-1, 2]), [ident])).not.toThrow();
  });

  it('refuses what Triton refuses, in its words', () => {
    expect(check(ens(oneStep(), 8), [ident])).toThrow('ensemble E allows maximum batch size 8, but it contains model M which only allows maximum batch size to be 4');
    expect(check(ens(oneStep({ IN: 'X', EXTRA: 'X' })), [ident])).toThrow('in ensemble E, ensemble tensor X is mapping to non-existing input EXTRA in model M');
    expect(check(ens(oneStep({})), [ident])).toThrow('in ensemble E, input IN in model M is not mapped to any ensemble tensors');
    expect(check(ens(oneStep({ IN: 'X' }, { NOPE: 'Y' })), [ident])).toThrow('in ensemble E, ensemble tensor Y is mapped from non-existing output NOPE in model M');
    expect(check(ens(oneStep(), 4, [3]), [ident])).toThrow('in ensemble E, ensemble tensor X: inconsistent shape: [-1,3] is inferred from model E while [-1,2] is inferred from model M');
    expect(check(ens(oneStep()), [model('M', 4, [t('IN', [-1, 2], 'INT32')], [t('OUT', [-1, 2])])]))
      .toThrow('in ensemble E, ensemble tensor X: inconsistent data type: TYPE_FP32 is inferred from model E while TYPE_INT32 is inferred from model M');
  });

  it('lets an optional input of a step model go unmapped', () => {
    const withOptional = model('M', 4, [t('IN', [-1, 2]), t('MASK', [-1, 2])], [t('OUT', [-1, 2])], ['MASK']);
    expect(check(ens(oneStep()), [withOptional])).not.toThrow();
  });
});
