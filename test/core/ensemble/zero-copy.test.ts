/**
 * Tensors travel between steps as the same byte views: what one step returns is the very
 * Uint8Array the next step receives, and the ensemble's answer holds the last step's bytes. Only
 * object identity shows this, so the steps are in-JS models (test/core/server/helpers/js-model.ts)
 * that pass their input through; the real executor's steps are covered end to end in
 * ensemble-serve.test.ts.
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
});
