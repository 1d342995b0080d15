import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerMetrics } from '../../../src/core/server/metrics.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { postJson } from './helpers/http-client.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe('Prometheus metrics', () => {
  it("exposes Triton's metric names and labels, and process metrics", async () => {
    const inputs = [
      { name: 'INPUT0', datatype: 'FP32', shape: [2, 4], data: [1, 2, 3, 4, 5, 6, 7, 8] },
      { name: 'INPUT1', datatype: 'FP32', shape: [2, 4], data: [1, 2, 3, 4, 5, 6, 7, 8] },
    ];
    expect((await postJson(`${t.http}/v2/models/simple/infer`, { inputs })).status).toBe(200);
    expect((await postJson(`${t.http}/v2/models/simple/infer`, { inputs: [{ ...inputs[0], shape: [8] }, inputs[1]] })).status).toBe(400);
    const res = await fetch(t.metrics);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^# TYPE nv_inference_request_success counter$/m);
    expect(text).toMatch(/^nv_inference_request_success\{model="simple",version="2"\} 1$/m);
    expect(text).toMatch(/^nv_inference_request_failure\{model="simple",version="2",reason="OTHER"\} 1$/m);
    expect(text).toMatch(/^nv_inference_count\{model="simple",version="2"\} 2$/m);
    expect(text).toMatch(/^nv_inference_exec_count\{model="simple",version="2"\} 1$/m);
    expect(text).toMatch(/^nv_inference_pending_request_count\{model="simple",version="2"\} 0$/m);
    for (const name of ['request_duration_us', 'queue_duration_us', 'compute_input_duration_us', 'compute_infer_duration_us', 'compute_output_duration_us']) {
      expect(text).toMatch(new RegExp(`^nv_inference_${name}\\{model="simple",version="2"\\} [0-9.e+-]+$`, 'm'));
    }
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('answers 404 elsewhere on the metrics port', async () => {
    const res = await fetch(t.metrics.replace('/metrics', '/other'));
    expect(res.status).toBe(404);
  });
});

describe('failures counted outside JS', () => {
  it('adds what a failure source reports since its last call (the native infer route) to nv_inference_request_failure', async () => {
    const metrics = new ServerMetrics(() => []);
    const batches = [
      [{ model: 'mnist', version: '1', reason: 'REJECTED' as const, count: 3 }],
      [{ model: 'mnist', version: '1', reason: 'REJECTED' as const, count: 2 }, { model: 'mnist', version: '1', reason: 'BACKEND' as const, count: 1 }],
    ];
    metrics.addFailureSource(() => batches.shift() ?? []);
    metrics.recordFailure('mnist', '1', 'REJECTED');
    expect(await metrics.text()).toContain('nv_inference_request_failure{model="mnist",version="1",reason="REJECTED"} 4');
    const second = await metrics.text();
    expect(second).toContain('nv_inference_request_failure{model="mnist",version="1",reason="REJECTED"} 6');
    expect(second).toContain('nv_inference_request_failure{model="mnist",version="1",reason="BACKEND"} 1');
  });
});
