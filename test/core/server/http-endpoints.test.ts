import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { getJson, postJson } from './helpers/http-client.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe('HTTP health and metadata', () => {
  it('answers live, and not ready while a model failed to load', async () => {
    expect((await fetch(`${t.http}/v2/health/live`)).status).toBe(200);
    expect((await fetch(`${t.http}/v2/health/ready`)).status).toBe(400);
  });

  it('lists only the extensions gebe implements', async () => {
    const { status, body } = await getJson(`${t.http}/v2`);
    expect(status).toBe(200);
    expect(body.name).toBe('gebe');
    expect(body.extensions).toEqual(expect.arrayContaining(['binary_tensor_data', 'classification', 'sequence', 'statistics', 'model_repository', 'system_shared_memory']));
    for (const missing of ['cuda_shared_memory', 'trace', 'logging']) expect(body.extensions).not.toContain(missing);
  });

  it('answers the shared-memory endpoints: no region yet, none of CUDA ever (no GPUs)', async () => {
    for (const kind of ['system', 'cuda']) {
      expect(await getJson(`${t.http}/v2/${kind}sharedmemory/status`)).toEqual({ status: 200, body: [] });
      expect((await fetch(`${t.http}/v2/${kind}sharedmemory/region/input0/unregister`, { method: 'POST' })).status).toBe(200);
      expect(await getJson(`${t.http}/v2/${kind}sharedmemory/region/input0/status`)).toEqual({ status: 404, body: { error: `Unable to find ${kind} shared memory region: 'input0'` } });
    }
    expect((await fetch(`${t.http}/v2/systemsharedmemory/region/input0/status`, { method: 'POST' })).status).toBe(400);
    expect((await getJson(`${t.http}/v2/systemsharedmemory/region/input0/map`)).status).toBe(404);
  });

  it('serves model metadata with and without a version', async () => {
    const { status, body } = await getJson(`${t.http}/v2/models/simple`);
    expect(status).toBe(200);
    expect(body).toEqual({
      name: 'simple', versions: ['1', '2'], platform: 'ge',
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [-1, 4] }, { name: 'INPUT1', datatype: 'FP32', shape: [-1, 4] }],
      outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [-1, 4] }, { name: 'OUTPUT1', datatype: 'FP32', shape: [-1, 4] }],
    });
    expect((await getJson(`${t.http}/v2/models/simple/versions/1`)).status).toBe(200);
  });

  it('answers 404 for unknown models and versions, 400 for non-numeric versions', async () => {
    expect(await getJson(`${t.http}/v2/models/nope`)).toEqual({ status: 404, body: { error: "Request for unknown model: 'nope' is not found" } });
    expect(await getJson(`${t.http}/v2/models/simple/versions/7`)).toEqual({ status: 404, body: { error: "Request for unknown model: 'simple' version 7 is not found" } });
    const bad = await getJson(`${t.http}/v2/models/simple/versions/latest`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/not a number/);
  });

  it('answers model readiness with and without a version', async () => {
    expect((await fetch(`${t.http}/v2/models/simple/ready`)).status).toBe(200);
    expect((await fetch(`${t.http}/v2/models/simple/versions/2/ready`)).status).toBe(200);
    expect((await fetch(`${t.http}/v2/models/broken/ready`)).status).toBe(400);
    expect((await fetch(`${t.http}/v2/models/nope/ready`)).status).toBe(404);
  });

  it('serves the model config as JSON', async () => {
    const { status, body } = await getJson(`${t.http}/v2/models/simple/config`);
    expect(status).toBe(200);
    expect(body.name).toBe('simple');
    expect(body.max_batch_size).toBe(8);
    expect(body.input[0]).toMatchObject({ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [4] });
  });

  it('answers /status with READY or UNAVAILABLE and the reason', async () => {
    expect(await getJson(`${t.http}/v2/models/simple/status`)).toEqual({ status: 200, body: { name: 'simple', version: '2', status: 'READY' } });
    expect(await getJson(`${t.http}/v2/models/simple/versions/1/status`)).toEqual({ status: 200, body: { name: 'simple', version: '1', status: 'READY' } });
    const broken = await getJson(`${t.http}/v2/models/broken/status`);
    expect(broken.body).toMatchObject({ name: 'broken', status: 'UNAVAILABLE' });
    expect(broken.body.reason).toMatch(/MAX_BATCH_SIZE_NEGATIVE/);
  });

  it('serves statistics per model and for all models', async () => {
    await postJson(`${t.http}/v2/models/simple/infer`, { inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
      { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
    ] });
    const one = await getJson(`${t.http}/v2/models/simple/versions/2/stats`);
    expect(one.status).toBe(200);
    expect(one.body.model_stats).toHaveLength(1);
    expect(one.body.model_stats[0]).toMatchObject({ name: 'simple', version: '2', inference_count: 1, execution_count: 1 });
    expect(one.body.model_stats[0].inference_stats.success.count).toBe(1);
    const perModel = await getJson(`${t.http}/v2/models/simple/stats`);
    expect(perModel.body.model_stats.map((s: { version: string }) => s.version)).toEqual(['1', '2']);
    const all = await getJson(`${t.http}/v2/models/stats`);
    expect(all.body.model_stats.length).toBeGreaterThan(10);
    expect((await getJson(`${t.http}/v2/models/nope/stats`)).status).toBe(404);
  });

  it('indexes the repository with states and reasons', async () => {
    const { status, body } = await postJson(`${t.http}/v2/repository/index`, {});
    expect(status).toBe(200);
    expect(body).toContainEqual({ name: 'simple', version: '1', state: 'READY' });
    expect(body.find((e: { name: string }) => e.name === 'broken')).toMatchObject({ state: 'UNAVAILABLE' });
    const ready = await postJson(`${t.http}/v2/repository/index`, { ready: true });
    expect(ready.body.every((e: { state: string }) => e.state === 'READY')).toBe(true);
    expect((await postJson(`${t.http}/v2/repository/index`, { ready: 'yes' })).status).toBe(400);
  });

  it('refuses load and unload unless the model control mode is explicit', async () => {
    const res = await postJson(`${t.http}/v2/repository/models/simple/unload`, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/--model-control-mode explicit/);
  });

  it('answers unknown paths with 404 and wrong methods with 400, as JSON errors', async () => {
    const res = await getJson(`${t.http}/v3/whatever`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/no endpoint GET \/v3\/whatever/);
    const wrong = await getJson(`${t.http}/v2/models/simple/infer`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/use POST/);
  });
});

describe('HTTP repository control (explicit mode)', () => {
  let e: TestServer;
  beforeAll(async () => {
    e = await startTestServer({ mode: 'explicit', load: ['simple'] });
  });
  afterAll(() => e.stop());

  it('loads only the requested models at start', async () => {
    expect((await fetch(`${e.http}/v2/models/simple/ready`)).status).toBe(200);
    expect((await fetch(`${e.http}/v2/models/id_fp32/ready`)).status).toBe(404);
    const index = await postJson(`${e.http}/v2/repository/index`, {});
    expect(index.body).toContainEqual({ name: 'id_fp32' });
  });

  it('loads, unloads and reloads with a config parameter', async () => {
    expect(await postJson(`${e.http}/v2/repository/models/id_fp32/load`, {})).toEqual({ status: 200, body: {} });
    expect((await fetch(`${e.http}/v2/models/id_fp32/ready`)).status).toBe(200);
    expect(await postJson(`${e.http}/v2/repository/models/id_fp32/unload`, {})).toEqual({ status: 200, body: {} });
    expect((await fetch(`${e.http}/v2/models/id_fp32/ready`)).status).toBe(400);
    const config = { name: 'id_fp32', backend: 'ge', max_batch_size: '0', input: [{ name: 'X', data_type: 'TYPE_FP32', dims: ['2'] }], output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: ['2'] }] };
    expect((await postJson(`${e.http}/v2/repository/models/id_fp32/load`, { parameters: { config: JSON.stringify(config) } })).status).toBe(200);
    const meta = await getJson(`${e.http}/v2/models/id_fp32`);
    expect(meta.body.inputs).toEqual([{ name: 'X', datatype: 'FP32', shape: [2] }]);
  });

  it('reports load failures with the reason', async () => {
    const missing = await postJson(`${e.http}/v2/repository/models/nope/load`, {});
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/no model directory named 'nope'/);
    const broken = await postJson(`${e.http}/v2/repository/models/broken/load`, {});
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatch(/MAX_BATCH_SIZE_NEGATIVE/);
    const badConfig = await postJson(`${e.http}/v2/repository/models/simple/load`, { parameters: { config: '{nope' } });
    expect(badConfig.status).toBe(400);
    expect(badConfig.body.error).toMatch(/not valid JSON/);
    const file = await postJson(`${e.http}/v2/repository/models/simple/load`, { parameters: { 'file:1/model.onnx': 'AAAA' } });
    expect(file.status).toBe(400);
    expect(file.body.error).toMatch(/does not accept model files inline/);
    expect((await postJson(`${e.http}/v2/repository/models/never_seen/unload`, {})).status).toBe(400);
    expect((await postJson(`${e.http}/v2/repository/index`, {})).body.some((m: { name: string }) => m.name === 'nope')).toBe(false);
  });
});
