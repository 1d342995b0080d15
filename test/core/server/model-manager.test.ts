import { describe, expect, it } from 'vitest';
import { ModelManager } from '../../../src/core/server/model-manager.js';
import { silentLogger } from '../../../src/core/server/logger.js';
import { ProtocolError } from '../../../src/core/kserve/protocol-error.js';
import { identityFromConfig, type JsModel } from './helpers/js-model.js';
import { protocolModels } from './helpers/test-server.js';
import { MemorySource } from './helpers/memory-source.js';

function manager(mode: 'none' | 'poll' | 'explicit' = 'poll') {
  const source = protocolModels();
  const loaded: JsModel[] = [];
  const m = new ModelManager(source, async (_dir, version, config) => {
    const model = identityFromConfig(config.name!, version, config);
    loaded.push(model);
    return model;
  }, silentLogger, mode);
  return { m, source, loaded };
}

const request = { inputs: [
  { name: 'INPUT0', datatype: 'FP32' as const, shape: [1, 4], data: new Uint8Array(16) },
  { name: 'INPUT1', datatype: 'FP32' as const, shape: [1, 4], data: new Uint8Array(16) },
] };

describe('ModelManager', () => {
  it('picks the highest ready version unless one is named', async () => {
    const { m } = manager();
    await m.start();
    expect(m.resolve('simple').version).toBe('2');
    expect(m.resolve('simple', '1').version).toBe('1');
    expect(() => m.resolve('simple', '3')).toThrow(/version 3 is not found/);
    expect(() => m.resolve('nope')).toThrow(ProtocolError);
  });

  it('reloads a changed model without dropping the requests in flight on the old one', async () => {
    const { m, source, loaded } = manager();
    await m.start();
    const old = m.resolve('simple');
    (old as JsModel).delayMs = 100;
    const inFlight = old.infer(request);
    source.models.get('simple')!.fingerprint = '2';
    const poll = m.poll();
    await new Promise((r) => setTimeout(r, 20));
    const fresh = m.resolve('simple');
    expect(fresh).not.toBe(old); // new requests already go to the new model
    await expect(inFlight).resolves.toMatchObject({ modelName: 'simple' });
    await poll;
    expect((old as JsModel).unloaded).toBe(true);
    expect((fresh as JsModel).unloaded).toBe(false);
    expect(loaded.length).toBeGreaterThan(0);
  });

  it('keeps serving the working version when a reload fails', async () => {
    const { m, source } = manager('explicit');
    await m.start(['simple']);
    const before = m.resolve('simple');
    source.models.get('simple')!.errors = ['config.pbtxt:1:1 X broken'];
    await expect(m.load('simple')).rejects.toThrow(/broken/);
    expect(m.resolve('simple')).toBe(before);
  });

  it('keeps the working version when the new model file fails to load, and poll does not retry it until files change', async () => {
    const source = protocolModels();
    let attempts = 0;
    let failing = false;
    const m = new ModelManager(source, async (_dir, version, config) => {
      attempts++;
      if (failing) throw new Error('broken.onnx is not an ONNX model');
      return identityFromConfig(config.name!, version, config);
    }, silentLogger, 'poll');
    await m.start();
    const before = m.resolve('simple');
    failing = true;
    source.models.get('simple')!.fingerprint = 'broken';
    const tries = attempts;
    await m.poll();
    expect(attempts).toBeGreaterThan(tries);
    expect(m.resolve('simple')).toBe(before);
    expect((before as JsModel).unloaded).toBe(false);
    const afterFirst = attempts;
    await m.poll(); // same files: not loaded again
    expect(attempts).toBe(afterFirst);
    failing = false;
    source.models.get('simple')!.fingerprint = 'fixed';
    await m.poll();
    expect(m.resolve('simple')).not.toBe(before);
    expect((before as JsModel).unloaded).toBe(true);
  });

  it('unloads models removed from the repository and forgets them', async () => {
    const { m, source } = manager();
    await m.start();
    source.models.delete('id_int8');
    await m.poll();
    expect(() => m.resolve('id_int8')).toThrow(/is not found/);
    expect((await m.index()).some((e) => e.name === 'id_int8')).toBe(false);
  });

  it('reports unknown --load-model names at start without stopping the others', async () => {
    const { m } = manager('explicit');
    await m.start(['simple', 'nope']);
    expect(m.resolve('simple').name).toBe('simple');
    expect(m.statuses().find((s) => s.name === 'nope')).toMatchObject({ state: 'UNAVAILABLE', reason: expect.stringMatching(/not in the repository/) });
  });

  it('loads loadThreads models at once at start, an ensemble waiting for the composing model another load has in hand', async () => {
    const source = new MemorySource();
    const simple = protocolModels().models.get('simple')!.config;
    for (let i = 1; i <= 6; i++) source.models.set(`m${i}`, { versions: ['1'], config: { ...simple, name: `m${i}` } });
    // Listed first: it starts beside m1, its composing model.
    source.models.set('a_pipe', { versions: ['1'], config: {
      name: 'a_pipe', platform: 'ensemble', max_batch_size: 8, input: simple.input, output: simple.output,
      ensemble_scheduling: { step: [{ model_name: 'm1', model_version: -1, input_map: { INPUT0: 'INPUT0', INPUT1: 'INPUT1' }, output_map: { OUTPUT0: 'OUTPUT0', OUTPUT1: 'OUTPUT1' } }] },
    } });
    for (const threads of [3, 1]) {
      let running = 0;
      let most = 0;
      const loads: string[] = [];
      const m = new ModelManager(source, async (_dir, version, config) => {
        loads.push(config.name!);
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 20));
        running -= 1;
        return identityFromConfig(config.name!, version, config);
      }, silentLogger, 'none');
      m.loadThreads = threads;
      await m.start();
      expect(most).toBe(threads);
      expect(loads.sort()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);  // m1 once, though the ensemble needed it too
      expect(m.statuses().filter((v) => v.state === 'READY').map((v) => v.name).sort()).toEqual(['a_pipe', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
      await expect(m.resolve('a_pipe').infer(request)).resolves.toMatchObject({ modelName: 'a_pipe' });
      await m.stop();
    }
  });

  it('tries a version that fails to load loadRetries times more (Triton\'s --model-load-retry-count)', async () => {
    for (const [retries, state, attempts] of [[2, 'READY', 3], [1, 'UNAVAILABLE', 2]] as const) {
      let calls = 0;
      const source = new MemorySource();
      source.models.set('flaky', { versions: ['1'], config: { ...protocolModels().models.get('simple')!.config, name: 'flaky' } });
      const m = new ModelManager(source, async (_dir, version, config) => {
        calls += 1;
        if (calls < 3) throw new Error(`load failed (attempt ${calls})`);
        return identityFromConfig(config.name!, version, config);
      }, silentLogger, 'none');
      m.loadRetries = retries;
      await m.start();
      expect(calls).toBe(attempts);
      const status = m.statuses().find((v) => v.name === 'flaky')!;
      expect(status.state).toBe(state);
      if (state === 'UNAVAILABLE') expect(status.reason).toBe('load failed (attempt 2)');
      await m.stop();
    }
  });
});

