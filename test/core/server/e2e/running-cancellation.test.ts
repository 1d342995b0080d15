/**
 * A request the client gave up on while it runs: a Loop whose trip count comes from the request
 * (a million 256x256 MatMuls, hours of work) on a model with one instance. The client's gRPC
 * deadline passes, its HTTP connection is reset, or an in-process caller aborts its signal; the
 * CPU engine stops the run at its next step
 * (every request of the batch is cancelled), so the instance serves the next request at once and
 * the statistics count the stopped run as a failure, not an execution. A shutdown whose drain
 * timeout passes closes the connection of a request still running, which stops it the same way.
 * Without the stop, the next request (or the shutdown) would wait for hours and this file would
 * time out.
 */
import { rmSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OnnxGraphBuilder } from '../../../helpers/onnx-builder.js';
import { grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { httpInferThenReset, mnistRepository, startRealServer, type RealServer } from './helpers.js';

const N = 256;
const ENDLESS = 1_000_000;  // iterations: below the engine's 2^20 bound, far beyond any test's patience

function loopModel(): Uint8Array {
  const body = new OnnxGraphBuilder('body', 16)
    .input('i', 'INT64', []).input('cond_in', 'BOOL', []).input('x_in', 'FLOAT', [N, N])
    .node('MatMul', ['x_in', 'w'], ['x_out'])
    .node('Identity', ['cond_in'], ['cond_out'])
    .output('cond_out', 'BOOL').output('x_out', 'FLOAT');
  const w = Array.from({ length: N * N }, (_, k) => (k % 7 === 0 ? 1 / N : 0));
  return new OnnxGraphBuilder('endless', 16)
    .input('M', 'INT64', [1])
    .initializer('w', 'FLOAT', [N, N], w)
    .initializer('x0', 'FLOAT', [N, N], Array.from({ length: N * N }, (_, k) => k % 3))
    .initializer('go', 'BOOL', [], [1])
    .node('Loop', ['M', 'go', 'x0'], ['y'], { body: { graph: body } })
    .output('y', 'FLOAT', [N, N])
    .encode();
}

const config = [
  'name: "endless"', 'backend: "ge"', 'max_batch_size: 0',
  'input [ { name: "M", data_type: TYPE_INT64, dims: [ 1 ] } ]',
  `output [ { name: "y", data_type: TYPE_FP32, dims: [ ${N}, ${N} ] } ]`,
  'instance_group [ { count: 1 } ]', '',
].join('\n');

let s: RealServer;
let client: GrpcClient;

beforeAll(async () => {
  s = await startRealServer(mnistRepository({ endless: { config, model: loopModel() } }));
  client = grpcClient(s.grpc);
});
afterAll(async () => {
  client?.close();
  await s?.stop();
});

const trips = (n: number) => Buffer.from(new BigInt64Array([BigInt(n)]).buffer);

function grpcInfer(n: number, options: grpc.CallOptions): Promise<number> {
  const request = { model_name: 'endless', inputs: [{ name: 'M', datatype: 'INT64', shape: [1] }], raw_input_contents: [trips(n)] };
  return new Promise((resolve) => {
    client.ModelInfer!(request, options, (err: grpc.ServiceError | null) => resolve(err ? err.code : grpc.status.OK));
  });
}

function stats(): { execution_count: number; inference_stats: { success: { count: number }; fail: { count: number } } } {
  return s.manager.resolve('endless').stats() as never;
}

it('stops a run whose gRPC deadline passed and serves the next request on the freed instance', async () => {
  const before = stats();
  expect(await grpcInfer(ENDLESS, { deadline: Date.now() + 300 })).toBe(grpc.status.DEADLINE_EXCEEDED);
  expect(await grpcInfer(2, {})).toBe(grpc.status.OK);
  const after = stats();
  expect(after.inference_stats.fail.count - before.inference_stats.fail.count).toBe(1);
  expect(after.inference_stats.success.count - before.inference_stats.success.count).toBe(1);
  expect(after.execution_count - before.execution_count).toBe(1);  // the stopped run is not an execution
});

it('stops a run whose HTTP client reset its connection', async () => {
  const before = stats();
  const { hostname, port } = new URL(s.http);
  await httpInferThenReset({ host: hostname, port: Number(port) }, 'endless', 300, { name: 'M', datatype: 'INT64', shape: [1], bytes: trips(ENDLESS) });
  const res = await fetch(`${s.http}/v2/models/endless/infer`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'M', datatype: 'INT64', shape: [1], data: [3] }], outputs: [{ name: 'y', parameters: { binary_data: true } }] }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  const after = stats();
  expect(after.inference_stats.fail.count - before.inference_stats.fail.count).toBe(1);
  expect(after.execution_count - before.execution_count).toBe(1);
});

it('stops a run whose in-process caller aborted it (the executor\'s signal)', async () => {
  const model = s.manager.resolve('endless');
  const before = stats();
  const abort = new AbortController();
  const running = model.infer({ inputs: [{ name: 'M', datatype: 'INT64', shape: [1], data: trips(ENDLESS) }], signal: abort.signal });
  setTimeout(() => abort.abort(), 300);
  await expect(running).rejects.toThrow();
  const next = await model.infer({ inputs: [{ name: 'M', datatype: 'INT64', shape: [1], data: trips(1) }] });
  expect(next.outputs[0]!.shape).toEqual([N, N]);
  const after = stats();
  expect(after.inference_stats.fail.count - before.inference_stats.fail.count).toBe(1);
  expect(after.execution_count - before.execution_count).toBe(1);
});

it('stops, when the server shuts down, a run whose client still waits (the exit timeout then holds)', async () => {
  const own = await startRealServer(mnistRepository({ endless: { config, model: loopModel() } }));
  const answered = fetch(`${own.http}/v2/models/endless/infer`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'M', datatype: 'INT64', shape: [1], data: [ENDLESS] }] }),
  }).then(() => 'answered', () => 'connection closed');
  await new Promise((r) => setTimeout(r, 300));
  // The drain waits 500 ms for the request, then closes its connection: the call is cancelled and
  // the run stops, so the model unloads and stop() returns (before, it waited for the Loop).
  await own.server.stop(500);
  rmSync(own.repo, { recursive: true, force: true });
  expect(await answered).toBe('connection closed');
});
