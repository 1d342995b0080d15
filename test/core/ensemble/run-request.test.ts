/**
 * What only the requests a step receives can show: tensors travel between steps as the same byte
 * views (what one step returns is the very Uint8Array the next receives, and the answer holds the
 * last step's bytes), and an optional ensemble input the client left out is left out of the step's
 * request. The steps are in-JS models (test/core/server/helpers/js-model.ts) that record their
 * requests; the real executor's steps are covered end to end in ensemble-serve.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import type { InferRequest, InferTensor, LoadedModel } from '../../../src/core/executor/types.js';
import { loadEnsemble } from '../../../src/core/ensemble/load.js';
import { JsModel } from '../server/helpers/js-model.js';

describe('ensemble tensors are not copied', () => {
  it('passes each step the previous step output bytes, and answers with the last step bytes', async () => {
    const seen: InferTensor[] = [];
    const passThrough = (name: string): JsModel => {
      const meta = { name: 'X', datatype: 'FP32' as const, shape: [-1, 2] };
      const model = new JsModel(name, '1', 4, [meta], [{ ...meta, name: 'Y' }], (inputs) => [{ ...inputs.get('X')!, name: 'Y' }]);
      const infer = model.infer.bind(model);
      model.infer = async (request: InferRequest) => {
        seen.push(request.inputs[0]!);
        const response = await infer(request);
        seen.push(response.outputs[0]!);
        return response;
      };
      return model;
    };
    const models = new Map<string, LoadedModel>([['first', passThrough('first')], ['second', passThrough('second')]]);
    const lookup = { resolve: (name: string) => models.get(name)! };
    const step = (model: string, from: string, to: string) => ({ model_name: model, model_version: -1, input_map: { X: from }, output_map: { Y: to } });
    const config: ModelConfig = {
      name: 'chain', platform: 'ensemble', max_batch_size: 4,
      input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [2] }], output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [2] }],
      ensemble_scheduling: { step: [step('first', 'IN', 'MID'), step('second', 'MID', 'OUT')] },
    };
    const ensemble = await loadEnsemble(config, '1', lookup);
    const data = new Uint8Array(new Float32Array([1, 2]).buffer);
    const response = await ensemble.infer({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 2], data }] });
    expect(seen).toHaveLength(4);
    expect(seen[0]!.data).toBe(data);
    expect(seen[2]!.data).toBe(seen[1]!.data);
    expect(response.outputs[0]!.data).toBe(seen[3]!.data);
  });

  it('an optional ensemble input the client leaves out is left out of the step request (Triton)', async () => {
    const requests: InferRequest[] = [];
    const x = { name: 'X', datatype: 'FP32' as const, shape: [-1, 2] };
    // Only what an ensemble reads of a step model: its metadata and infer().
    const optional = {
      name: 'opt', version: '1', maxBatchSize: 4, inputs: [x, { ...x, name: 'MASK' }], outputs: [{ ...x, name: 'Y' }], optionalInputs: new Set(['MASK']),
      infer: async (request: InferRequest) => {
        requests.push(request);
        return { modelName: 'opt', modelVersion: '1', outputs: [{ ...request.inputs[0]!, name: 'Y' }] };
      },
    } as unknown as LoadedModel;
    const config: ModelConfig = {
      name: 'maybe', platform: 'ensemble', max_batch_size: 4,
      input: [{ name: 'X', data_type: 'TYPE_FP32', dims: [2] }, { name: 'MASK', data_type: 'TYPE_FP32', dims: [2], optional: true }],
      output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: [2] }],
      ensemble_scheduling: { step: [{ model_name: 'opt', model_version: -1, input_map: { X: 'X', MASK: 'MASK' }, output_map: { Y: 'Y' } }] },
    };
    const ensemble = await loadEnsemble(config, '1', { resolve: () => optional });
    const response = await ensemble.infer({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 2], data: new Uint8Array(8) }] });
    expect(requests.map((r) => r.inputs.map((t) => t.name))).toEqual([['X']]);
    expect(response.outputs.map((t) => t.name)).toEqual(['Y']);
  });
});

describe('ensembles with decoupled steps', () => {
  it('are refused at load, naming the step and its model', async () => {
    const x = { name: 'X', datatype: 'FP32' as const, shape: [-1, 2] };
    const streaming = { name: 'tokens', version: '1', maxBatchSize: 4, inputs: [x], outputs: [{ ...x, name: 'Y' }], decoupled: true } as unknown as LoadedModel;
    const config: ModelConfig = {
      name: 'pipeline', platform: 'ensemble', max_batch_size: 4,
      input: [{ name: 'X', data_type: 'TYPE_FP32', dims: [2] }], output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: [2] }],
      ensemble_scheduling: { step: [{ model_name: 'tokens', model_version: -1, input_map: { X: 'X' }, output_map: { Y: 'Y' } }] },
    };
    await expect(loadEnsemble(config, '1', { resolve: () => streaming })).rejects.toThrow(
      "ensemble 'pipeline' step 0 runs the decoupled model 'tokens': gebe serve runs each ensemble step for one response, so ensembles with decoupled steps are not implemented; call the decoupled model on its own over gRPC ModelStreamInfer");
  });
});
