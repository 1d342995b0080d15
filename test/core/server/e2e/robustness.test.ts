/**
 * The real executor behind the protocol layer: malformed requests, a full queue, and a graceful
 * shutdown under load.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { fuzzGrpc, fuzzHttp, heapAfterGc } from '../helpers/fuzz.js';
import { binaryBody, postBinary } from '../helpers/http-client.js';
import { call, grpcClient } from '../helpers/grpc-client.js';
import { mnistRepository, repoRoot, startRealServer } from './helpers.js';

const image = new Uint8Array(new Float32Array(784).fill(0.5).buffer);
const inputs = [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], bytes: image }];

async function mnistWorks(base: string): Promise<void> {
  const req = binaryBody({}, inputs);
  const res = await postBinary(`${base}/v2/models/mnist/infer`, req.body, req.headerLength);
  expect(res.status).toBe(200);
  expect(res.json.outputs[0].shape).toEqual([1, 10]);
}

describe('the real executor behind the protocol layer', () => {
  it('answers thousands of malformed requests with client errors, keeps serving, memory flat', async () => {
    const s = await startRealServer(mnistRepository());
    try {
      expect(await fuzzHttp(s.http, 'mnist', inputs, 400, 11)).toEqual([]);
      const before = heapAfterGc();
      expect(await fuzzHttp(s.http, 'mnist', inputs, 800, 12)).toEqual([]);
      expect(await fuzzGrpc(s.grpc, 'mnist', inputs, 400, 13)).toEqual([]);
      const after = heapAfterGc();
      await mnistWorks(s.http);
      expect(after - before).toBeLessThan(8 * 1024 * 1024);
    } finally {
      await s.stop();
    }
  });

  it('answers 503 and RESOURCE_EXHAUSTED when max_queue_size is reached', async () => {
    const config = readFileSync(path.join(repoRoot, 'templates/mnist/config.pbtxt'), 'utf8')
      .replace('name: "mnist"', 'name: "tiny_queue"')
      .replace(/max_queue_delay_microseconds: \d+/, 'max_queue_delay_microseconds: 100\n  default_queue_policy { max_queue_size: 1 }')
      .replace(/count: \d+/, 'count: 1');
    const s = await startRealServer(mnistRepository({ tiny_queue: { config, model: readFileSync(path.join(repoRoot, 'templates/mnist/1/model.onnx')), files: { 'labels.txt': readFileSync(path.join(repoRoot, 'templates/mnist/labels.txt')) } } }));
    try {
      const batch = { name: 'image', datatype: 'FP32', shape: [16, 1, 28, 28], bytes: new Uint8Array(16 * 784 * 4) };
      const req = binaryBody({}, [batch]);
      const results = await Promise.all(Array.from({ length: 64 }, () => postBinary(`${s.http}/v2/models/tiny_queue/infer`, req.body, req.headerLength)));
      const rejected = results.filter((r) => r.status === 503);
      expect(rejected.length).toBeGreaterThan(0);
      expect(rejected[0]!.json.error).toMatch(/Exceeds maximum queue size for model 'tiny_queue'/);
      expect(results.every((r) => r.status === 200 || r.status === 503)).toBe(true);
      const client = grpcClient(s.grpc);
      const grpcResults = await Promise.allSettled(Array.from({ length: 64 }, () => call(client, 'ModelInfer', { model_name: 'tiny_queue', inputs: [{ name: 'image', datatype: 'FP32', shape: batch.shape }], raw_input_contents: [Buffer.from(batch.bytes)] })));
      client.close();
      const codes = grpcResults.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason.code);
      expect(codes.length).toBeGreaterThan(0);
      expect(new Set(codes)).toEqual(new Set([status.RESOURCE_EXHAUSTED]));
      const metrics = await (await fetch(s.metrics)).text();
      expect(metrics).toMatch(/^nv_inference_request_failure\{model="tiny_queue",version="1",reason="REJECTED"\} [1-9]\d*$/m);
    } finally {
      await s.stop();
    }
  });

  it('loses no accepted request when stopped under load', async () => {
    const s = await startRealServer(mnistRepository());
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const req = binaryBody({}, [{ ...inputs[0]!, shape: [8, 1, 28, 28], bytes: new Uint8Array(8 * 784 * 4) }]);
    const results: Array<number | string> = [];
    let stopping = false;
    const one = () => new Promise<number | string>((resolve) => {
      const r = http.request(`${s.http}/v2/models/mnist/infer`, { method: 'POST', agent, headers: { 'Inference-Header-Content-Length': String(req.headerLength), 'Content-Length': String(req.body.byteLength) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      r.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      r.end(req.body);
    });
    const clients = Array.from({ length: 16 }, async () => {
      for (;;) {
        const r = await one();
        results.push(r);
        if (typeof r === 'string' || (stopping && r !== 200)) return;
      }
    });
    while (results.length < 50 || s.server.http!.inFlightCount === 0) await new Promise((r) => setTimeout(r, 2));
    stopping = true;
    await s.stop();
    await Promise.all(clients);
    agent.destroy();
    const front = s.server.http!;
    expect(front.accepted).toBe(front.answered);
    expect(results.filter((r) => r === 200).length).toBe(front.accepted);
    expect(results.filter((r) => typeof r === 'number' && r !== 200)).toEqual([]);
  });
});
