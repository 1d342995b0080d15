/**
 * Triton's latency metrics on a real server (`--metrics-config`): with summary_latencies=true each
 * model's requests are summarized (count and sum since load, quantiles over the last minute) for
 * every kind of model (a native one, a cached one, an ensemble, a Python one), in Prometheus' text
 * format as Triton writes it; counter_latencies=false drops the duration counters;
 * histogram_latencies=true counts a decoupled model's time to first response into the buckets of
 * its model_metrics.
 */
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, grpcClient, streamInfer } from '../helpers/grpc-client.js';
import { postJson } from '../helpers/http-client.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { DEFAULT_LATENCY_METRICS } from '../../../../src/core/server/latency-metrics.js';
import { mnistRepository, startRealServer, writeMnistPipeline, writeParametersModel, type RealServer } from './helpers.js';

const image = { name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] };
const digit = (seed: number) => new Float32Array(784).map((_, i) => ((i + seed) % 7) / 8);
const FAMILIES = ['request', 'queue', 'compute_input', 'compute_infer', 'compute_output'];

async function metrics(server: RealServer): Promise<string> {
  const res = await fetch(server.metrics);
  expect(res.status).toBe(200);
  return res.text();
}

/** One model's summary `name` as the exposition writes it: its quantile samples, sum and count. */
function summary(text: string, name: string, model: string): { quantiles: Map<string, number>; sum: number; count: number } | undefined {
  const labels = `model="${model}",version="1"`;
  const quantiles = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${name}\\{${labels},quantile="([0-9.]+)"\\} (\\S+)$`, 'gm'))) quantiles.set(m[1]!, Number(m[2]));
  const sum = new RegExp(`^${name}_sum\\{${labels}\\} (\\S+)$`, 'm').exec(text);
  const count = new RegExp(`^${name}_count\\{${labels}\\} (\\S+)$`, 'm').exec(text);
  if (!sum || !count) return undefined;
  return { quantiles, sum: Number(sum[1]), count: Number(count[1]) };
}

function counter(text: string, name: string, model: string): number | undefined {
  const m = new RegExp(`^${name}\\{model="${model}",version="1"\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

describe('latency summaries of executor models, cached models and ensembles', () => {
  let server: RealServer;
  beforeAll(async () => {
    const repo = mnistRepository();
    cpSync(path.join(repo, 'mnist'), path.join(repo, 'cached'), { recursive: true });
    const config = path.join(repo, 'cached', 'config.pbtxt');
    writeFileSync(config, readFileSync(config, 'utf8').replace('name: "mnist"', 'name: "cached"') + '\nresponse_cache { enable: true }\n');
    writeMnistPipeline(repo);
    server = await startRealServer(repo, 'none', [], undefined, {
      responseCacheBytes: 1 << 20,
      latencyMetrics: { ...DEFAULT_LATENCY_METRICS, summaries: true, quantiles: [0.5, 0.9, 0.99] },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('summarizes each request of a native model, whichever protocol carried it, in Triton\'s format', async () => {
    const grpc = grpcClient(server.grpc);
    try {
      for (let i = 0; i < 20; i++) {
        expect((await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [{ ...image, data: [...digit(i)] }] })).status).toBe(200);
        await call(grpc, 'ModelInfer', { model_name: 'mnist', inputs: [image], raw_input_contents: [Buffer.from(digit(i).buffer)] });
      }
    } finally {
      grpc.close();
    }
    const text = await metrics(server);
    expect(text).toMatch(/^# TYPE nv_inference_request_summary_us summary$/m);
    for (const family of FAMILIES) {
      const s = summary(text, `nv_inference_${family}_summary_us`, 'mnist');
      expect(s, family).toBeDefined();
      // Every request served (the ensemble's steps included) is counted once.
      expect(s!.count, family).toBe(counter(text, 'nv_inference_request_success', 'mnist'));
      expect([...s!.quantiles.keys()]).toEqual(['0.5', '0.9', '0.99']);
      const [p50, p90, p99] = [...s!.quantiles.values()];
      expect(p50!).toBeGreaterThanOrEqual(0);
      expect(p50!).toBeLessThanOrEqual(p90!);
      expect(p90!).toBeLessThanOrEqual(p99!);
    }
    // The summaries' sums are the counters' totals: the same durations, observed twice.
    const request = summary(text, 'nv_inference_request_summary_us', 'mnist')!;
    expect(request.count).toBeGreaterThanOrEqual(40);
    expect(request.sum).toBeCloseTo(counter(text, 'nv_inference_request_duration_us', 'mnist')!, 3);
    expect(request.quantiles.get('0.99')!).toBeLessThanOrEqual(request.sum);
    const infer = summary(text, 'nv_inference_compute_infer_summary_us', 'mnist')!;
    expect(infer.sum).toBeCloseTo(counter(text, 'nv_inference_compute_infer_duration_us', 'mnist')!, 3);
  });

  it('gives a cached model the cache\'s summaries and, as Triton, no request summary', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await postJson(`${server.http}/v2/models/cached/infer`, { inputs: [{ ...image, data: [...digit(9)] }] })).status).toBe(200);
    }
    const text = await metrics(server);
    expect(summary(text, 'nv_inference_request_summary_us', 'cached')).toBeUndefined();
    expect(summary(text, 'nv_cache_hit_summary_per_model', 'cached')?.count).toBe(2);
    expect(summary(text, 'nv_cache_miss_summary_per_model', 'cached')?.count).toBe(1);
    // The one miss ran on the model, whose queue and compute are summarized.
    expect(summary(text, 'nv_inference_compute_infer_summary_us', 'cached')?.count).toBe(1);
    // Models without a cache have no cache summaries.
    expect(summary(text, 'nv_cache_hit_summary_per_model', 'mnist')).toBeUndefined();
  });

  it('summarizes an ensemble\'s requests as its statistics count them', async () => {
    for (let i = 0; i < 4; i++) {
      expect((await postJson(`${server.http}/v2/models/pipeline/infer`, { inputs: [{ name: 'IMAGE', datatype: 'FP32', shape: [1, 1, 28, 28], data: [...digit(i)] }] })).status).toBe(200);
    }
    const text = await metrics(server);
    for (const family of FAMILIES) expect(summary(text, `nv_inference_${family}_summary_us`, 'pipeline')?.count, family).toBe(4);
    const request = summary(text, 'nv_inference_request_summary_us', 'pipeline')!;
    expect(request.quantiles.get('0.5')!).toBeGreaterThan(0);
  });
});

describe('counter_latencies=false', () => {
  it('drops the duration counters and keeps the counts', async () => {
    const repo = mnistRepository();
    appendFileSync(path.join(repo, 'mnist', 'config.pbtxt'), '\nresponse_cache { enable: true }\n');
    const server = await startRealServer(repo, 'none', [], undefined, { responseCacheBytes: 1 << 20, latencyMetrics: { ...DEFAULT_LATENCY_METRICS, counters: false } });
    try {
      expect((await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [{ ...image, data: [...digit(1)] }] })).status).toBe(200);
      const text = await metrics(server);
      expect(counter(text, 'nv_inference_request_success', 'mnist')).toBe(1);
      for (const name of ['request_duration_us', 'queue_duration_us', 'compute_input_duration_us', 'compute_infer_duration_us', 'compute_output_duration_us']) {
        expect(text).not.toContain(`nv_inference_${name}`);
      }
      // As Triton, the cache's per-model counters go with them; its server-wide gauges stay.
      expect(text).not.toContain('nv_cache_num_hits_per_model');
      expect(text).toMatch(/^nv_cache_num_entries 1$/m);
      expect(text).not.toContain('_summary_');
    } finally {
      await server.stop();
    }
  });
});

const python = pythonForTests();

describe.skipIf(!python.available)('latency summaries of a Python model', () => {
  it('summarizes each request of the model', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-summaries-'));
    writeParametersModel(repo);
    const server = await startRealServer(repo, 'none', [], undefined, { latencyMetrics: { ...DEFAULT_LATENCY_METRICS, summaries: true } });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await postJson(`${server.http}/v2/models/params/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [i] }] })).status).toBe(200);
      }
      const text = await metrics(server);
      for (const family of FAMILIES) {
        const s = summary(text, `nv_inference_${family}_summary_us`, 'params');
        expect(s?.count, family).toBe(3);
        expect([...s!.quantiles.keys()]).toEqual(['0.5', '0.9', '0.95', '0.99', '0.999']);
      }
      expect(summary(text, 'nv_inference_compute_infer_summary_us', 'params')!.quantiles.get('0.5')!).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  });
});

describe.skipIf(!python.available)('the first-response histogram of a decoupled Python model', () => {
  it('counts each request\'s time to its first response into the buckets its model_metrics names', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-histogram-'));
    const model = (name: string, extra: string) => {
      mkdirSync(path.join(repo, name, '1'), { recursive: true });
      writeFileSync(path.join(repo, name, 'config.pbtxt'), [
        `name: "${name}"`, 'backend: "python"', 'max_batch_size: 0', 'model_transaction_policy { decoupled: true }',
        'input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]', 'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]', extra, '',
      ].join('\n'));
      // The first response after about 30 ms, then one a value, then the final flag.
      writeFileSync(path.join(repo, name, '1', 'model.py'), [
        'import time', 'import numpy as np', 'import triton_python_backend_utils as pb_utils',
        'class TritonPythonModel:',
        '    def execute(self, requests):',
        '        for r in requests:',
        '            sender = r.get_response_sender()',
        '            time.sleep(0.03)',
        '            for v in pb_utils.get_input_tensor_by_name(r, "IN").as_numpy().tolist():',
        '                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([v], np.int32))]))',
        '            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)',
        '',
      ].join('\n'));
    };
    model('custom', 'model_metrics { metric_control [ { metric_identifier { family: "nv_inference_first_response_histogram_ms" } histogram_options { buckets: [ 1, 20, 10000 ] } } ] }');
    model('plain', '');
    writeParametersModel(repo);
    const server = await startRealServer(repo, 'none', [], undefined, { latencyMetrics: { ...DEFAULT_LATENCY_METRICS, histograms: true } });
    const grpc = grpcClient(server.grpc);
    try {
      const request = (name: string) => ({ model_name: name, inputs: [{ name: 'IN', datatype: 'INT32', shape: [2], contents: { int_contents: [1, 2] } }] });
      for (const name of ['custom', 'custom', 'plain']) {
        const responses = await streamInfer(grpc, [request(name)]);
        expect(responses.filter((r) => r.error_message === '').length).toBeGreaterThanOrEqual(2);
      }
      const text = await metrics(server);
      expect(text).toMatch(/^# TYPE nv_inference_first_response_histogram_ms histogram$/m);
      const bucket = (m: string, le: string) => Number(new RegExp(`^nv_inference_first_response_histogram_ms_bucket\\{model="${m}",version="1",le="${le.replace('+', '\\+')}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
      // Both first responses took 30 ms or more: none in the 1 and 20 ms buckets, both by 10 s.
      expect([bucket('custom', '1'), bucket('custom', '20'), bucket('custom', '10000'), bucket('custom', '+Inf')]).toEqual([0, 0, 2, 2]);
      expect(counter(text, 'nv_inference_first_response_histogram_ms_count', 'custom')).toBe(2);
      expect(counter(text, 'nv_inference_first_response_histogram_ms_sum', 'custom')!).toBeGreaterThanOrEqual(60);
      // Triton's default buckets where the config names none.
      expect([bucket('plain', '100'), bucket('plain', '500'), bucket('plain', '2000'), bucket('plain', '5000'), bucket('plain', '+Inf')]).toEqual([1, 1, 1, 1, 1]);
      // A model that answers once a request has no histogram.
      expect(text).not.toContain('nv_inference_first_response_histogram_ms_count{model="params"');
    } finally {
      grpc.close();
      await server.stop();
    }
  });
});
