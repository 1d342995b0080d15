/**
 * The gates of max_inflight_requests: a step lets in at most `limit` requests, the rest wait in
 * order and leave the line when their ensemble request fails; the ensemble hears when a step
 * backs up and when it drains. And an ensemble with the limit, run over in-JS models: its step
 * never has more than the limit in flight, across concurrent requests, and a request cancelled
 * while its step waits never reaches the model.
 */
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import type { InferRequest, InferResponse, LoadedModel } from '../../../src/core/executor/types.js';
import { loadEnsemble } from '../../../src/core/ensemble/load.js';
import { GatedSteps, StepGates } from '../../../src/core/ensemble/step-gates.js';

describe('StepGates', () => {
  it('lets `limit` requests in at a step, the next as one finishes, in order of arrival', () => {
    const events: string[] = [];
    const gates = new StepGates(2, 2, (step, backedUp) => events.push(`step ${step} ${backedUp ? 'backed up' : 'drained'}`));
    const releases: Array<() => void> = [];
    const enter = (name: string, step = 0) => gates.enter(step, (release) => {
      events.push(`${name} in`);
      releases.push(release);
    });
    expect(enter('a')).toBeUndefined();
    expect(enter('b')).toBeUndefined();
    const c = enter('c');
    const d = enter('d');
    expect(c).toBeDefined();
    enter('other step', 1);
    expect(events).toEqual(['a in', 'b in', 'step 0 backed up', 'other step in']);
    releases[0]!();
    releases[0]!(); // a second call of the same release changes nothing
    expect(events.slice(4)).toEqual(['c in']);
    expect(d!.cancel()).toBe(true);
    expect(d!.cancel()).toBe(false);
    expect(events.slice(5)).toEqual(['step 0 drained']);
    releases[1]!();
    enter('e');
    expect(events.slice(6)).toEqual(['e in']);
  });

  it('lets everything in at once without a limit (0)', () => {
    const gates = new StepGates(1, 0);
    let running = 0;
    for (let i = 0; i < 100; i++) expect(gates.enter(0, () => (running += 1))).toBeUndefined();
    expect(running).toBe(100);
  });

  it('takes a failed request\'s waiting step requests out of their lines', () => {
    const gates = new StepGates(1, 1);
    let holder: (() => void) | undefined;
    gates.enter(0, (release) => (holder = release));
    const failed = new GatedSteps(gates);
    const ran: string[] = [];
    failed.enter(0, () => ran.push('failed request'));
    const other = new GatedSteps(gates);
    other.enter(0, () => ran.push('other request'));
    failed.leaveAll();
    holder!();
    expect(ran).toEqual(['other request']);
  });
});

describe('an ensemble with max_inflight_requests', () => {
  const tensor = { name: 'X', datatype: 'FP32' as const, shape: [1] };
  const config = (limit: number): ModelConfig => ({
    name: 'gated', platform: 'ensemble', max_batch_size: 0,
    input: [{ name: 'X', data_type: 'TYPE_FP32', dims: [1] }], output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: [1] }],
    ensemble_scheduling: { max_inflight_requests: limit, step: [{ model_name: 'slow', model_version: -1, input_map: { X: 'X' }, output_map: { Y: 'Y' } }] },
  } as ModelConfig);

  async function run(limit: number, requests: InferRequest[]): Promise<{ most: number; calls: number; settled: PromiseSettledResult<unknown>[] }> {
    let now = 0;
    let most = 0;
    let calls = 0;
    const slow = {
      name: 'slow', version: '1', maxBatchSize: 0, inputs: [tensor], outputs: [{ ...tensor, name: 'Y' }],
      infer: async (r: InferRequest) => {
        calls += 1;
        most = Math.max(most, (now += 1));
        await new Promise((resolve) => setTimeout(resolve, 10));
        now -= 1;
        return { modelName: 'slow', modelVersion: '1', outputs: [{ ...r.inputs[0]!, name: 'Y' }] };
      },
    } as unknown as LoadedModel;
    const ensemble = await loadEnsemble(config(limit), '1', { resolve: () => slow });
    const settled = await Promise.allSettled(requests.map((r) => ensemble.infer(r)));
    return { most, calls, settled };
  }
  const request = (signal?: AbortSignal): InferRequest => ({ inputs: [{ ...tensor, data: new Uint8Array(4) }], signal });

  it('has at most that many requests at a step, across concurrent ensemble requests', async () => {
    const limited = await run(2, Array.from({ length: 6 }, () => request()));
    expect(limited.settled.map((s) => s.status)).toEqual(Array(6).fill('fulfilled'));
    expect(limited.most).toBe(2);
    // The control: without the limit all six run at once.
    expect((await run(0, Array.from({ length: 6 }, () => request()))).most).toBe(6);
  });

  it('drops a request cancelled while its step waits: the model never sees it', async () => {
    const cancelled = new AbortController();
    const requests = [request(), request(cancelled.signal), request()];
    setTimeout(() => cancelled.abort(), 2);
    const result = await run(1, requests);
    expect(result.settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(result.calls).toBe(2);
  });

  it('holds a decoupled ensemble nested as the feeding step: its own decoupled steps are held while the step waits', async () => {
    let held = 0;
    let mostHeld = 0;
    const producer = {
      name: 'producer', version: '1', maxBatchSize: 0, inputs: [tensor], outputs: [tensor], decoupled: true,
      inferDecoupled: async (r: InferRequest, on: (d: { response?: InferResponse; final: boolean }) => void) => {
        for (let i = 0; i < 5; i++) on({ response: { modelName: 'producer', modelVersion: '1', outputs: [{ ...r.inputs[0]! }] }, final: false });
        await new Promise((resolve) => setTimeout(resolve, 5));
        on({ final: true });
      },
      holdResponses: () => {
        mostHeld = Math.max(mostHeld, ++held);
        return () => { held -= 1; };
      },
    } as unknown as LoadedModel;
    const slow = {
      name: 'slow', version: '1', maxBatchSize: 0, inputs: [tensor], outputs: [{ ...tensor, name: 'Y' }],
      infer: async (r: InferRequest) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return { modelName: 'slow', modelVersion: '1', outputs: [{ ...r.inputs[0]!, name: 'Y' }] };
      },
    } as unknown as LoadedModel;
    const io = { input: [{ name: 'X', data_type: 'TYPE_FP32', dims: [1] }], max_batch_size: 0, platform: 'ensemble' };
    const innerConfig = { ...io, name: 'inner', output: [{ name: 'Z', data_type: 'TYPE_FP32', dims: [1] }],
      ensemble_scheduling: { step: [{ model_name: 'producer', model_version: -1, input_map: { X: 'X' }, output_map: { X: 'Z' } }] } } as ModelConfig;
    const models: Record<string, LoadedModel> = { producer, slow };
    const lookup = { resolve: (name: string) => models[name]! };
    models.inner = await loadEnsemble(innerConfig, '1', lookup);
    const outerConfig = { ...io, name: 'outer', output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: [1] }],
      ensemble_scheduling: { max_inflight_requests: 1, step: [
        { model_name: 'inner', model_version: -1, input_map: { X: 'X' }, output_map: { Z: 'mid' } },
        { model_name: 'slow', model_version: -1, input_map: { X: 'mid' }, output_map: { Y: 'Y' } },
      ] } } as ModelConfig;
    const outer = await loadEnsemble(outerConfig, '1', lookup);
    let answers = 0;
    await outer.inferDecoupled!(request(), (d) => { if (d.response) answers += 1; });
    expect(answers).toBe(5);
    expect(mostHeld).toBe(1);  // held while slow's line was not empty
    expect(held).toBe(0);      // and let go once it was
  });
});

