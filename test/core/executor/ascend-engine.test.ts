/**
 * The ascend engine end to end through the executor facade, against the fake AscendCL built by
 * the suite: loader search and errors, device selection, datasets and copies, gears and
 * padding, error messages, unload. The fake logs its calls; tests read the log.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GebeError } from '../../../src/errors.js';
import { InferError, loadModel, type ExecutorModel } from '../../../src/core/executor/index.js';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import { buildFakeAcl, f32, floats, writeFakeOm } from './fake-acl.js';

let work: string;
let fakeHome: string;
let log: string;
const loaded: ExecutorModel[] = [];

function config(extra: Partial<ModelConfig> = {}): ModelConfig {
  return {
    name: 'double',
    backend: 'ge',
    max_batch_size: 8,
    input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [4] }],
    output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [4] }],
    ...extra,
  };
}

async function load(dir: string, cfg: ModelConfig): Promise<ExecutorModel> {
  const model = await loadModel(dir, '1', cfg);
  loaded.push(model);
  return model;
}

function logLines(): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
}

function x(rows: number, start = 0): Uint8Array {
  return f32(Array.from({ length: rows * 4 }, (_, i) => start + i));
}

beforeAll(() => {
  fakeHome = buildFakeAcl();
  work = mkdtempSync(path.join(os.tmpdir(), 'gebe-ascend-'));
  log = path.join(work, 'acl.log');
  process.env.FAKE_ACL_LOG = log;
});

afterEach(async () => {
  await Promise.all(loaded.splice(0).map((m) => m.unload()));
  delete process.env.FAKE_ACL_FAIL;
  rmSync(log, { force: true });
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  delete process.env.FAKE_ACL_LOG;
});

describe('AscendCL loader', () => {
  // These run first: once AscendCL loads, it stays loaded for the process.
  it('names every place it looked when CANN is absent', async () => {
    const empty = path.join(work, 'no-cann');
    mkdirSync(empty);
    process.env.ASCEND_HOME_PATH = empty;
    const dir = writeFakeOm(work, 'absent', { gears: [1, 2] });
    const err = await loadModel(dir, '1', config({ name: 'absent' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GebeError);
    const message = (err as GebeError).message;
    expect(message).toContain('AscendCL (CANN) was not found');
    expect(message).toContain('libascendcl.so (or libacl_rt.so + libacl_mdl.so)');
    expect(message).toContain(`${empty}/lib64 (not there)`);
    expect(message).toContain('/usr/local/Ascend/cann/lib64');
    expect(message).toContain('source <CANN install>/set_env.sh');
  });

  it('never loads the link-only stubs under devlib/', async () => {
    const devlib = path.join(work, 'cann', 'devlib');
    mkdirSync(path.join(devlib, 'lib64'), { recursive: true });
    copyFileSync(path.join(fakeHome, 'lib64/libascendcl.so'), path.join(devlib, 'lib64/libascendcl.so'));
    process.env.ASCEND_HOME_PATH = devlib;
    const dir = writeFakeOm(work, 'stubs', { gears: [1, 2] });
    const err = await loadModel(dir, '1', config({ name: 'stubs' })).catch((e: unknown) => e);
    expect((err as Error).message).toContain(`${devlib}/lib64 (skipped: devlib/ holds link-only stubs)`);
  });

  it('loads AscendCL from $ASCEND_HOME_PATH/lib64', async () => {
    process.env.ASCEND_HOME_PATH = fakeHome;
    const model = await load(writeFakeOm(work, 'double', { gears: [1, 2, 4, 8] }), config());
    expect(model.engine).toBe('ascend');
    expect(logLines()[0]).toBe('aclInit');
  });
});

describe('ascend engine', () => {
  beforeAll(() => {
    process.env.ASCEND_HOME_PATH = fakeHome;
  });

  it('describes the model: inputs, outputs and gears from the .om', async () => {
    const model = await load(writeFakeOm(work, 'double', { gears: [1, 2, 4, 8] }), config({ input: undefined, output: undefined }));
    expect(model.inputs).toEqual([{ name: 'x', datatype: 'FP32', shape: [-1, 4] }]);
    expect(model.outputs).toEqual([{ name: 'y', datatype: 'FP32', shape: [-1, 4] }]);
    expect(model.gears).toEqual([1, 2, 4, 8]);
  });

  it('pads a batch to the next gear and returns only the real rows', async () => {
    const model = await load(writeFakeOm(work, 'double', { gears: [1, 2, 4, 8] }), config());
    const response = await model.infer({ id: 'r1', inputs: [{ name: 'x', datatype: 'FP32', shape: [3, 4], data: x(3, 1) }] });
    expect(response.id).toBe('r1');
    expect(response.outputs[0]!.shape).toEqual([3, 4]);
    expect(floats(response.outputs[0]!.data)).toEqual(Array.from({ length: 12 }, (_, i) => 2 * (i + 1)));
    const lines = logLines();
    expect(lines).toContain('aclmdlSetDynamicBatchSize 4');
    expect(lines.some((l) => /^aclmdlExecuteAsync \d+ device 0 batch 4$/.test(l))).toBe(true);
    const stats = model.stats();
    expect(stats.inference_count).toBe(3);
    expect(stats.execution_count).toBe(1);
    expect(stats.batch_stats.map((b) => b.batch_size)).toEqual([3]);
  });

  it('runs on the device device_ids names, one context per instance, round robin', async () => {
    const model = await load(
      writeFakeOm(work, 'double', { gears: [1, 2, 4, 8] }),
      config({ parameters: { device_ids: { string_value: '1,0' } }, instance_group: [{ count: 2, kind: 'KIND_MODEL' }] }),
    );
    expect(model.instanceCount).toBe(2);
    await model.infer({ inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 4], data: x(1) }] });
    const lines = logLines();
    expect(lines).toContain('aclrtSetDevice 1');
    expect(lines).toContain('aclrtSetDevice 0');
    expect(lines.filter((l) => l.startsWith('aclmdlLoadFromFile')).map((l) => l.split(' ').slice(2).join(' ')).sort()).toEqual([
      'device 0',
      'device 1',
    ]);
    // The first free instance is instance 0, which runs on device 1.
    expect(lines.find((l) => l.startsWith('aclmdlExecuteAsync'))).toMatch(/device 1 batch 1$/);
  });

  it('refuses a device the host does not have, naming device_ids', async () => {
    const err = await loadModel(
      writeFakeOm(work, 'double', { gears: [1, 2] }),
      '1',
      config({ parameters: { device_ids: { string_value: '5' } } }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GebeError);
    expect((err as Error).message).toContain('device_ids names Ascend device 5, but this host has 2 (devices 0..1)');
  });

  it('turns an aclError into function name, code and aclGetRecentErrMsg()', async () => {
    const model = await load(writeFakeOm(work, 'double', { gears: [1, 2, 4, 8] }), config());
    process.env.FAKE_ACL_FAIL = 'aclmdlExecuteAsync';
    const err = await model.infer({ inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], data: x(2) }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InferError);
    expect((err as InferError).status).toBe(500);
    expect((err as InferError).reason).toBe('BACKEND');
    expect((err as Error).message).toBe(
      "failed to run model 'double' (ascend engine): aclmdlExecuteAsync failed with AscendCL error 507011: " +
        `fake failure injected in aclmdlExecuteAsync (${path.join(work, 'double/1/model.om')})`,
    );
    expect(model.stats().inference_stats.fail.count).toBe(1);
  });

  it('reports a model file AscendCL cannot load', async () => {
    const dir = path.join(work, 'broken');
    mkdirSync(path.join(dir, '1'), { recursive: true });
    writeFileSync(path.join(dir, '1/model.om'), 'IMOD not really\n');
    const err = await loadModel(dir, '1', config({ name: 'broken' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GebeError);
    expect((err as Error).message).toContain('aclmdlLoadFromFile failed with AscendCL error 145000: not a model file');
  });

  it('runs a static .om without gears', async () => {
    const model = await load(
      writeFakeOm(work, 'static2', { staticBatch: 2, scale: 3 }),
      config({ name: 'static2', max_batch_size: 0, input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [2, 4] }], output: undefined }),
    );
    expect(model.gears).toEqual([]);
    const r = await model.infer({ inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], data: x(2) }] });
    expect(floats(r.outputs[0]!.data)).toEqual(Array.from({ length: 8 }, (_, i) => 3 * i));
    expect(logLines()).not.toContain('aclmdlSetDynamicBatchSize 2');
  });

  it('batches concurrent requests into preferred sizes that are gears', async () => {
    const model = await load(
      writeFakeOm(work, 'double', { gears: [1, 2, 4, 8] }),
      config({ dynamic_batching: { preferred_batch_size: [4, 8], max_queue_delay_microseconds: 10_000_000 } }),
    );
    // Count the native completion calls: one per finished batch, not one per request.
    const calls: number[] = [];
    const deliver = model.onComplete;
    (model as unknown as { onComplete: typeof deliver }).onComplete = (results) => {
      if (results) calls.push(results.length);
      deliver(results);
    };
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => model.infer({ inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 4], data: x(1, 100 * i) }] })),
    );
    expect(calls).toEqual([4, 4]);
    responses.forEach((r, i) => expect(floats(r.outputs[0]!.data)).toEqual([0, 1, 2, 3].map((k) => 2 * (100 * i + k))));
    const stats = model.stats();
    expect(stats.execution_count).toBe(2);
    expect(stats.inference_count).toBe(8);
    expect(stats.inference_stats.success.count).toBe(8);
    expect(stats.inference_stats.compute_infer.count).toBe(8);
    expect(stats.batch_stats).toEqual([expect.objectContaining({ batch_size: 4, compute_infer: expect.objectContaining({ count: 2 }) })]);
    expect(logLines().filter((l) => l === 'aclmdlSetDynamicBatchSize 4')).toHaveLength(2);
  });

  it('compile() accepts gears and names the gears when a batch is not one', async () => {
    const model = await load(writeFakeOm(work, 'double', { gears: [1, 2, 4, 8] }), config());
    await expect(model.compile({ x: [4, 4] })).resolves.toMatchObject({ cached: true, shapes: { x: [4, 4] } });
    await expect(model.compile({ x: [3, 4] })).rejects.toThrow(/batch size 3 is not a gear of .*model\.om \(gears 1,2,4,8\)/);
  });

  it('unload finishes in-flight and queued requests and frees the device', async () => {
    const model = await loadModel(
      writeFakeOm(work, 'double', { gears: [1, 2, 4, 8] }),
      '1',
      config({ dynamic_batching: { preferred_batch_size: [4], max_queue_delay_microseconds: 60_000_000 } }),
    );
    const request = (i: number) => model.infer({ inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 4], data: x(1, i) }] });
    const first = [0, 1, 2, 3].map(request);  // a preferred batch: dispatched at once
    const queued = [4, 5].map(request);        // would wait for the 60 s delay; the unload drains them
    const settled = Promise.allSettled([...first, ...queued]);
    await model.unload();
    const results = await settled;
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(logLines().some((l) => l.startsWith('aclmdlUnload'))).toBe(true);
    expect(logLines()).toContain('aclrtResetDevice 0');
    await expect(request(9)).rejects.toThrow("model 'double' version 1 is not loaded");
    expect(model.pendingCount()).toBe(0);
  });
});
