/**
 * What only the requests a step receives can show: tensors travel between steps as the same byte
 * views (what one step returns is the very Uint8Array the next receives, and the answer holds the
 * last step's bytes), and an optional ensemble input the client left out is left out of the step's
 * request. The steps are in-JS models (test/core/server/helpers/js-model.ts) that record their
 * requests; the real executor's steps are covered end to end in ensemble-serve.test.ts.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import type { DecoupledResponse, InferRequest, InferTensor, LoadedModel } from '../../../src/core/executor/types.js';
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
  it('answer as decoupled models: infer() refuses, naming what takes several responses', async () => {
    const x = { name: 'X', datatype: 'FP32' as const, shape: [-1, 2] };
    const streaming = { name: 'tokens', version: '1', maxBatchSize: 4, inputs: [x], outputs: [{ ...x, name: 'Y' }], decoupled: true } as unknown as LoadedModel;
    const config: ModelConfig = {
      name: 'pipeline', platform: 'ensemble', max_batch_size: 4,
      input: [{ name: 'X', data_type: 'TYPE_FP32', dims: [2] }], output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: [2] }],
      ensemble_scheduling: { step: [{ model_name: 'tokens', model_version: -1, input_map: { X: 'X' }, output_map: { Y: 'Y' } }] },
    };
    const ensemble = await loadEnsemble(config, '1', { resolve: () => streaming });
    expect(ensemble.decoupled).toBe(true);
    await expect(ensemble.infer({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 2], data: new Uint8Array(8) }] })).rejects.toThrow(
      "model 'pipeline' is decoupled (model_transaction_policy { decoupled: true }): it sends any number of responses a request, which a caller that takes one response (a BLS exec() without decoupled=True) cannot take");
  });

  it('run the steps after a decoupled one once per response, seeing what other branches write later', async () => {
    // A: decoupled, Y = X + i for i = 0, 1 (at once). B: Z = 10 X, 20 ms later. C: OUT = Y + Z.
    const scalar = (name: string) => ({ name, datatype: 'FP32' as const, shape: [1] });
    const value = (t: { data: Uint8Array }) => new Float32Array(t.data.buffer.slice(t.data.byteOffset, t.data.byteOffset + 4))[0]!;
    const tensor = (name: string, v: number) => ({ name, datatype: 'FP32' as const, shape: [1], data: new Uint8Array(new Float32Array([v]).buffer) });
    const response = (model: string, outputs: ReturnType<typeof tensor>[]) => ({ modelName: model, modelVersion: '1', outputs });
    const models: Record<string, LoadedModel> = {
      a: {
        name: 'a', version: '1', maxBatchSize: 0, inputs: [scalar('X')], outputs: [scalar('Y')], decoupled: true,
        inferDecoupled: async (r: InferRequest, on: (d: DecoupledResponse) => void) => {
          await Promise.resolve();
          for (const i of [0, 1]) on({ response: response('a', [tensor('Y', value(r.inputs[0]!) + i)]), final: false });
          on({ final: true });
        },
      } as unknown as LoadedModel,
      b: {
        name: 'b', version: '1', maxBatchSize: 0, inputs: [scalar('X')], outputs: [scalar('Z')],
        infer: (r: InferRequest) => new Promise((resolve) => setTimeout(() => resolve(response('b', [tensor('Z', 10 * value(r.inputs[0]!))])), 20)),
      } as unknown as LoadedModel,
      c: {
        name: 'c', version: '1', maxBatchSize: 0, inputs: [scalar('Y'), scalar('Z')], outputs: [scalar('OUT')],
        infer: async (r: InferRequest) => response('c', [tensor('OUT', r.inputs.reduce((n, t) => n + value(t), 0))]),
      } as unknown as LoadedModel,
    };
    const map = (pairs: Record<string, string>) => pairs;
    const config: ModelConfig = {
      name: 'branches', platform: 'ensemble', max_batch_size: 0,
      input: [{ name: 'X', data_type: 'TYPE_FP32', dims: [1] }], output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [1] }],
      ensemble_scheduling: {
        step: [
          { model_name: 'a', model_version: -1, input_map: map({ X: 'X' }), output_map: map({ Y: 'y' }) },
          { model_name: 'b', model_version: -1, input_map: map({ X: 'X' }), output_map: map({ Z: 'z' }) },
          { model_name: 'c', model_version: -1, input_map: map({ Y: 'y', Z: 'z' }), output_map: map({ OUT: 'OUT' }) },
        ],
      },
    };
    const ensemble = await loadEnsemble(config, '1', { resolve: (name: string) => models[name]! });
    const seen: Array<number | string> = [];
    await ensemble.inferDecoupled!({ inputs: [tensor('X', 3)] }, (d) => {
      if (d.response) seen.push(value(d.response.outputs[0]!));
      if (d.final) seen.push('final');
    });
    expect(seen).toEqual([33, 34, 'final']);
  });

  it('let go of each response\'s tensors once its flow has answered, while the stream goes on', async () => {
    // A streams 200 responses of 64 KB and holds its final flag until told; C reads each. Every
    // response's flow has answered and finished by then, so what A sent can be collected: the
    // request holds the flows still at work, not one per response it has streamed.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const big = (name: string) => ({ name, datatype: 'UINT8' as const, shape: [65536] });
    const sent: Array<WeakRef<Uint8Array>> = [];
    let finish!: () => void;
    const streamed = new Promise<void>((resolve) => (finish = resolve));
    let allSent!: () => void;
    const sentAll = new Promise<void>((resolve) => (allSent = resolve));
    const models: Record<string, LoadedModel> = {
      a: {
        name: 'a', version: '1', maxBatchSize: 0, inputs: [big('X')], outputs: [big('Y')], decoupled: true,
        inferDecoupled: async (_r: InferRequest, on: (d: DecoupledResponse) => void) => {
          for (let i = 0; i < 200; i++) {
            const data = new Uint8Array(65536).fill(i);
            sent.push(new WeakRef(data));
            on({ response: { modelName: 'a', modelVersion: '1', outputs: [{ name: 'Y', datatype: 'UINT8', shape: [65536], data }] }, final: false });
            await new Promise((resolve) => setImmediate(resolve));
          }
          allSent();
          await streamed;
          on({ final: true });
        },
      } as unknown as LoadedModel,
      c: {
        name: 'c', version: '1', maxBatchSize: 0, inputs: [big('Y')], outputs: [{ name: 'FIRST', datatype: 'UINT8', shape: [1] }],
        infer: async (r: InferRequest) => ({ modelName: 'c', modelVersion: '1', outputs: [{ name: 'FIRST', datatype: 'UINT8', shape: [1], data: r.inputs[0]!.data.slice(0, 1) }] }),
      } as unknown as LoadedModel,
    };
    const config: ModelConfig = {
      name: 'stream', platform: 'ensemble', max_batch_size: 0,
      input: [{ name: 'X', data_type: 'TYPE_UINT8', dims: [65536] }], output: [{ name: 'FIRST', data_type: 'TYPE_UINT8', dims: [1] }],
      ensemble_scheduling: {
        step: [
          { model_name: 'a', model_version: -1, input_map: { X: 'X' }, output_map: { Y: 'y' } },
          { model_name: 'c', model_version: -1, input_map: { Y: 'y' }, output_map: { FIRST: 'FIRST' } },
        ],
      },
    };
    const ensemble = await loadEnsemble(config, '1', { resolve: (name: string) => models[name]! });
    let answers = 0;
    const done = ensemble.inferDecoupled!({ inputs: [{ name: 'X', datatype: 'UINT8', shape: [65536], data: new Uint8Array(65536) }] }, (d) => {
      if (d.response) answers += 1;
    });
    await sentAll;
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
    const alive = sent.filter((ref) => ref.deref() !== undefined).length;
    finish();
    await done;
    expect(answers).toBe(200);
    expect(alive).toBeLessThan(5);
  });
});
