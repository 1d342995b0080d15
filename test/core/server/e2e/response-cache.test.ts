/**
 * Triton's response cache on a real server (`--cache-config local,size=`, a model's
 * `response_cache { enable: true }`): a repeated request is answered without running the model,
 * whichever protocol carries it; statistics and metrics count hits and misses as Triton's; a
 * model's answers leave the cache when it unloads; failures are not kept; and a Python model's
 * answer, which depends on the request's parameters, is kept per parameters.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { binaryBody, getJson, postBinary, postJson } from '../helpers/http-client.js';
import { silentLogger, type Logger } from '../../../../src/core/server/logger.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { mnistRepository, startRealServer, writeMnistPipeline, writeParametersModel, type RealServer } from './helpers.js';

const CACHED = '\nresponse_cache { enable: true }\n';
const image = { name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] };
const digit = (seed: number) => new Float32Array(784).map((_, i) => ((i + seed) % 7) / 8);

type Stats = { inference_count: number; execution_count: number; inference_stats: Record<'success' | 'queue' | 'cache_hit' | 'cache_miss' | 'compute_infer', { count: number; ns: number }> };
async function stats(server: RealServer, model: string): Promise<Stats> {
  const { status, body } = await getJson(`${server.http}/v2/models/${model}/stats`);
  expect(status).toBe(200);
  return body.model_stats[0];
}

describe('the response cache of an executor model', () => {
  let server: RealServer;
  let grpc: GrpcClient;
  beforeAll(async () => {
    const repo = mnistRepository();
    appendFileSync(path.join(repo, 'mnist', 'config.pbtxt'), CACHED);
    server = await startRealServer(repo, 'explicit', ['mnist'], undefined, { responseCacheBytes: 1 << 20 });
    grpc = grpcClient(server.grpc);
  });
  afterAll(async () => {
    grpc?.close();
    await server?.stop();
  });

  const binary = async (pixels: Float32Array) => {
    const bytes = new Uint8Array(pixels.buffer);
    const { body, headerLength } = binaryBody({ inputs: [{ ...image, parameters: { binary_data_size: bytes.byteLength } }] }, [{ ...image, bytes }]);
    const answer = await postBinary(`${server.http}/v2/models/mnist/infer`, body, headerLength);
    expect(answer.status).toBe(200);
    return (answer.json.outputs[0].data as number[]).map(Math.fround);
  };
  const json = async (pixels: Float32Array, outputs?: object[]) => postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [{ ...image, data: [...pixels] }], outputs });
  const viaGrpc = async (pixels: Float32Array) => {
    const answer = await call(grpc, 'ModelInfer', { model_name: 'mnist', inputs: [image], raw_input_contents: [Buffer.from(pixels.buffer)] });
    return [...new Float32Array(new Uint8Array(answer.raw_output_contents[0]).buffer)];
  };

  it('answers a repeated request from the cache, whichever protocol repeats it, without running the model', async () => {
    const first = await binary(digit(1));
    expect(first).toHaveLength(10);
    let s = await stats(server, 'mnist');
    expect([s.inference_stats.cache_miss.count, s.inference_stats.cache_hit.count, s.execution_count]).toEqual([1, 0, 1]);

    expect(await binary(digit(1))).toEqual(first);
    const fromJson = await json(digit(1));
    expect(fromJson.status).toBe(200);
    expect((fromJson.body.outputs[0].data as number[]).map(Math.fround)).toEqual(first);
    expect(await viaGrpc(digit(1))).toEqual(first);
    s = await stats(server, 'mnist');
    expect(s.inference_stats.cache_hit.count).toBe(3);
    expect(s.inference_stats.cache_miss.count).toBe(1);
    // As Triton: hits are successes, but neither inferences nor executions of the model.
    expect([s.inference_stats.success.count, s.inference_stats.queue.count, s.inference_count, s.execution_count]).toEqual([4, 4, 1, 1]);
    expect(s.inference_stats.compute_infer.count).toBe(1);

    const other = await viaGrpc(digit(2));
    expect(other).not.toEqual(first);
    s = await stats(server, 'mnist');
    expect([s.inference_stats.cache_miss.count, s.execution_count]).toEqual([2, 2]);
  });

  it('keeps no failure: a refused request is refused again, each time by the model', async () => {
    const before = await stats(server, 'mnist');
    for (let i = 0; i < 2; i++) {
      const bad = await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [{ ...image, shape: [1, 28, 28], data: new Array(784).fill(0) }] });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/image/);
    }
    const after = await stats(server, 'mnist');
    expect(after.inference_stats.cache_hit.count).toBe(before.inference_stats.cache_hit.count);
    expect(after.inference_stats.cache_miss.count).toBe(before.inference_stats.cache_miss.count);
  });

  it('classifies a cached answer as it classifies a computed one', async () => {
    const asked = [{ name: 'logits', parameters: { classification: 2 } }];
    const computed = await json(digit(3), asked);
    const cached = await json(digit(3), asked);
    expect(computed.status).toBe(200);
    expect(cached.body.outputs).toEqual(computed.body.outputs);
    expect(cached.body.outputs[0].data[0]).toMatch(/^[-0-9.e]+:[0-9]:/);
    const s = await stats(server, 'mnist');
    expect(s.inference_stats.cache_hit.count).toBe(4);
  });

  it('exports Triton\'s cache metrics', async () => {
    const text = await (await fetch(server.metrics)).text();
    expect(text).toContain('nv_cache_num_hits_per_model{model="mnist",version="1"} 4');
    expect(text).toContain('nv_cache_num_misses_per_model{model="mnist",version="1"} 3');
    expect(text).toMatch(/nv_cache_hit_duration_per_model\{model="mnist",version="1"\} [0-9.e-]+/);
    expect(text).toMatch(/nv_cache_miss_duration_per_model\{model="mnist",version="1"\} [0-9.e-]+/);
    expect(text).toContain('nv_cache_num_entries 3');
    expect(Number(/nv_cache_util ([0-9.e-]+)/.exec(text)?.[1])).toBeGreaterThan(0);
  });

  it('drops a model\'s answers when it unloads: after a reload the same request runs the model', async () => {
    expect((await postJson(`${server.http}/v2/repository/models/mnist/unload`, {})).status).toBe(200);
    expect(await (await fetch(server.metrics)).text()).toContain('nv_cache_num_entries 0');
    expect((await postJson(`${server.http}/v2/repository/models/mnist/load`, {})).status).toBe(200);
    await binary(digit(1));
    const s = await stats(server, 'mnist');
    expect([s.inference_stats.cache_miss.count, s.inference_stats.cache_hit.count, s.execution_count]).toEqual([1, 0, 1]);
  });
});

describe('the response cache of an ensemble', () => {
  it('answers a repeated request to the ensemble without running its steps', async () => {
    const repo = mnistRepository();
    writeMnistPipeline(repo, CACHED);
    const server = await startRealServer(repo, 'none', [], undefined, { responseCacheBytes: 1 << 20 });
    try {
      const infer = () => postJson(`${server.http}/v2/models/pipeline/infer`, { inputs: [{ name: 'IMAGE', datatype: 'FP32', shape: [1, 1, 28, 28], data: [...digit(4)] }] });
      const first = await infer();
      const second = await infer();
      expect(first.status).toBe(200);
      expect(second.body.outputs).toEqual(first.body.outputs);
      const ensemble = await stats(server, 'pipeline');
      expect([ensemble.inference_stats.cache_hit.count, ensemble.inference_stats.cache_miss.count]).toEqual([1, 1]);
      expect((await stats(server, 'mnist')).execution_count).toBe(1);
    } finally {
      await server.stop();
    }
  });
});

describe('tracing a cache-enabled model', () => {
  it('traces each sampled request once: a miss with the model\'s run as its child, a hit alone', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-cache-trace-'));
    const file = path.join(dir, 'trace.json');
    const repo = mnistRepository();
    appendFileSync(path.join(repo, 'mnist', 'config.pbtxt'), CACHED);
    const server = await startRealServer(repo, 'none', [], undefined, {
      responseCacheBytes: 1 << 20, trace: { file, setting: { timestamps: true, rate: 1, count: -1, logFrequency: 0 } },
    });
    try {
      const infer = async (seed: number) => expect((await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [{ ...image, data: [...digit(seed)] }] })).status).toBe(200);
      await infer(5);
      await infer(5);
      // Every other request from here: four misses, two traced (the runs of the other two are not sampled again).
      expect((await postJson(`${server.http}/v2/models/mnist/trace/setting`, { trace_rate: '2' })).status).toBe(200);
      for (const seed of [1, 2, 3, 4]) await infer(seed);
    } finally {
      await server.stop();
    }
    const entries = JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: number; parent_id?: number; model_name?: string; timestamps?: Array<{ name: string }> }>;
    rmSync(dir, { recursive: true, force: true });
    const named = entries.filter((e) => e.model_name !== undefined);
    const top = named.filter((e) => !e.parent_id);
    const children = named.filter((e) => e.parent_id);
    expect(top).toHaveLength(4);
    expect(children).toHaveLength(3);
    expect(children.map((c) => c.parent_id)).toEqual([top[0]!.id, top[2]!.id, top[3]!.id]);
    const stamps = (id: number) => entries.filter((e) => e.id === id).flatMap((e) => (e.timestamps ?? []).map((t) => t.name));
    expect(stamps(children[0]!.id)).toContain('COMPUTE_START');
    expect(stamps(top[1]!.id)).toEqual(expect.arrayContaining(['HTTP_RECV_START', 'REQUEST_START', 'REQUEST_END', 'HTTP_SEND_END']));
    expect(stamps(top[1]!.id)).not.toContain('COMPUTE_START');
  });
});

describe('a model that enables the cache on a server without one', () => {
  let server: RealServer;
  const warnings: Array<{ message: string; fields?: object }> = [];
  beforeAll(async () => {
    const repo = mnistRepository();
    appendFileSync(path.join(repo, 'mnist', 'config.pbtxt'), CACHED);
    const log: Logger = { ...silentLogger, warn: (message, fields) => void warnings.push({ message, fields }) };
    server = await startRealServer(repo, 'none', [], log);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is served uncached, with a warning that says how to give the server a cache', async () => {
    expect(warnings).toContainEqual({ message: expect.stringMatching(/response_cache is enabled .* the server has no response cache/), fields: expect.objectContaining({ model: 'mnist', hint: expect.stringContaining('--cache-config local,size=') }) });
    const s = await stats(server, 'mnist');
    // Every model's statistics have Triton's cache fields.
    expect(s.inference_stats.cache_hit).toEqual({ count: 0, ns: 0 });
    expect(s.inference_stats.cache_miss).toEqual({ count: 0, ns: 0 });
    expect(await (await fetch(server.metrics)).text()).not.toContain('nv_cache_');
  });
});

const python = pythonForTests();

describe.skipIf(!python.available)('the response cache of a Python model', () => {
  let server: RealServer;
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-cache-'));
    writeParametersModel(repo);
    appendFileSync(path.join(repo, 'params', 'config.pbtxt'), CACHED);
    // The same model, decoupled: Triton refuses to load it with a cache.
    mkdirSync(path.join(repo, 'stream', '1'), { recursive: true });
    writeFileSync(path.join(repo, 'stream', 'config.pbtxt'), readFileSync(path.join(repo, 'params', 'config.pbtxt'), 'utf8')
      .replace('name: "params"', 'name: "stream"') + 'model_transaction_policy { decoupled: true }\n');
    writeFileSync(path.join(repo, 'stream', '1', 'model.py'), readFileSync(path.join(repo, 'params', '1', 'model.py')));
    server = await startRealServer(repo, 'explicit', ['params'], undefined, { responseCacheBytes: 1 << 20 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const infer = async (parameters: object) => {
    const { status, body } = await postJson(`${server.http}/v2/models/params/infer`, { parameters, inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [7] }] });
    expect(status).toBe(200);
    return JSON.parse(body.outputs[0].data[0]);
  };

  it('refuses a decoupled model that enables the cache, in Triton\'s words', async () => {
    const { status, body } = await postJson(`${server.http}/v2/repository/models/stream/load`, {});
    expect(status).toBe(400);
    expect(body.error).toBe("failed to load 'stream': Response Cache does not currently support model 'stream' with 'decoupled' transaction policy; remove response_cache { enable: true } from its config, or serve it without --cache-config");
  });

  it('keeps an answer per request parameters, which the model reads', async () => {
    expect(await infer({ tenant: 'a' })).toEqual({ tenant: 'a' });
    expect(await infer({ tenant: 'a' })).toEqual({ tenant: 'a' });
    expect(await infer({ tenant: 'b' })).toEqual({ tenant: 'b' });
    const s = await stats(server, 'params');
    expect([s.inference_stats.cache_hit.count, s.inference_stats.cache_miss.count, s.execution_count]).toEqual([1, 2, 2]);
  });
});
