/**
 * Cancellation with real clients of the requests JS answers (a Python model, an ensemble over it;
 * an ensemble over an executor model, whose steps JS queues in the native scheduler) and of the
 * sequence steps the native HTTP and gRPC routes queue through the sequence batcher:
 * a grpc-js call whose deadline passes or that the client cancels, and an HTTP client that resets
 * its connection, while the request waits behind a running one. The request is dropped from the
 * queue (the model never executes it: execution_count stays at one), the client gets
 * DEADLINE_EXCEEDED / CANCELLED, and nv_inference_request_failure counts it as CANCELED, on the
 * native front ends and on node:http (--http-frontend node) and grpc-js over TLS alike.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../../src/core/executor/index.js';
import { DiskModelSource } from '../../../../src/core/server/disk-source.js';
import { silentLogger } from '../../../../src/core/server/logger.js';
import { ModelManager } from '../../../../src/core/server/model-manager.js';
import { GebeServer } from '../../../../src/core/server/server.js';
import { grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls-certs.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { httpInferThenReset, repoRoot } from './helpers.js';
import type { NativeHttpFrontend } from '../../../../src/core/server/http/native-frontend.js';

const python = pythonForTests();
const RUN_S = 0.8;  // how long one execute() of `slow` takes

/** Writes `repo/name/config.pbtxt` (and the version directory 1). */
function writeModel(repo: string, name: string, config: string[]): void {
  mkdirSync(path.join(repo, name, '1'), { recursive: true });
  writeFileSync(path.join(repo, name, 'config.pbtxt'), [`name: "${name}"`, ...config, ''].join('\n'));
}

function repository(): string {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-cancel-'));
  writeModel(repo, 'slow', [
    'backend: "python"', 'max_batch_size: 0',
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]',
    'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]',
    'instance_group [ { count: 1 kind: KIND_CPU } ]',
  ]);
  writeFileSync(path.join(repo, 'slow', '1', 'model.py'), [
    'import time',
    'import triton_python_backend_utils as pb_utils',
    'class TritonPythonModel:',
    '    def execute(self, requests):',
    `        time.sleep(${RUN_S})`,
    '        return [pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy())]) for r in requests]',
    '',
  ].join('\n'));
  writeModel(repo, 'slow_pipeline', [
    'platform: "ensemble"', 'max_batch_size: 0',
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]',
    'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]',
    'ensemble_scheduling { step [ { model_name: "slow" model_version: -1 input_map { key: "X" value: "X" } output_map { key: "Y" value: "Y" } } ] }',
  ]);
  return repo;
}

interface Served {
  manager: ModelManager;
  server: GebeServer;
  http: { host: string; port: number };
  grpc: string;
  metrics: string;
  client: GrpcClient;
  stop(): Promise<void>;
}

/** The server over the real executor; with `tls`, gRPC is served by grpc-js over TLS (--grpc-use-ssl). */
async function serve(repo: string, httpFrontend: 'native' | 'node', tls?: TestCertificates): Promise<Served> {
  const manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
  await manager.start();
  const failed = manager.statuses().filter((v) => v.state !== 'READY');
  if (failed.length > 0) throw new Error(`models failed to load: ${failed.map((f) => `${f.name}: ${f.reason}`).join('; ')}`);
  const grpcTls = tls ? { cert: tls.pem('server.pem'), key: tls.pem('server.key'), mutual: false } : undefined;
  const server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 1 << 20, httpFrontend, grpcTls }, silentLogger);
  const ports = await server.listen();
  const client = tls
    ? grpcClient(`localhost:${ports.grpc}`, 'inference.GRPCInferenceService', grpc.credentials.createSsl(tls.pem('ca.pem')))
    : grpcClient(`127.0.0.1:${ports.grpc}`);
  return {
    manager, server, client,
    http: { host: '127.0.0.1', port: ports.http! }, grpc: `127.0.0.1:${ports.grpc}`, metrics: `http://127.0.0.1:${ports.metrics}/metrics`,
    stop: async () => {
      client.close();
      await server.stop(5000);
      rmSync(repo, { recursive: true, force: true });
    },
  };
}

const X = Buffer.from(new Float32Array([7]).buffer);
const X_INPUT = { name: 'X', shape: [1], bytes: X };

/** A ModelInfer through a grpc-js client; resolves to the status code it ended with. */
function grpcCode(client: GrpcClient, request: object, options: grpc.CallOptions, onCall?: (c: grpc.ClientUnaryCall) => void): Promise<number> {
  return new Promise((resolve) => {
    const c = client.ModelInfer!(request, options, (err: grpc.ServiceError | null) => resolve(err ? err.code : grpc.status.OK)) as grpc.ClientUnaryCall;
    onCall?.(c);
  });
}

function inferCode(client: GrpcClient, model: string, options: grpc.CallOptions, onCall?: (c: grpc.ClientUnaryCall) => void): Promise<number> {
  return grpcCode(client, { model_name: model, inputs: [{ name: 'X', datatype: 'FP32', shape: [1] }], raw_input_contents: [X] }, options, onCall);
}

function stats(s: Served, model: string): { execution_count: number; inference_count: number; inference_stats: { fail: { count: number } } } {
  return s.manager.resolve(model).stats() as never;
}

async function canceledCount(s: Served, model: string): Promise<number> {
  const text = await (await fetch(s.metrics)).text();
  const line = text.split('\n').find((l) => l.startsWith('nv_inference_request_failure{') && l.includes(`model="${model}"`) && l.includes('reason="CANCELED"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the model is idle (nothing queued or running), bounded. */
async function idle(s: Served, model: string): Promise<void> {
  for (let i = 0; i < 100 && s.manager.resolve(model).pendingCount() > 0; i++) await sleep(50);
}

for (const [frontend, tls] of [['native', false], ['node', true]] as const) {
  describe.skipIf(!python.available)(`cancelling JS-answered requests (HTTP front end: ${frontend}; gRPC: ${tls ? 'grpc-js over TLS' : 'native'})`, () => {
    let s: Served;
    let client: GrpcClient;
    let certs: TestCertificates | undefined;
    beforeAll(async () => {
      certs = tls ? makeTestCertificates() : undefined;
      s = await serve(repository(), frontend, certs);
      client = s.client;
    }, 60_000);
    afterAll(async () => {
      await s?.stop();
      certs?.remove();
    });

    it('drops a queued Python request whose gRPC deadline passes (DEADLINE_EXCEEDED, counted CANCELED)', async () => {
      const before = stats(s, 'slow').execution_count;
      const canceled = await canceledCount(s, 'slow');
      const running = inferCode(client, 'slow', {});
      await sleep(100);  // the first request runs; the next one waits behind it
      expect(await inferCode(client, 'slow', { deadline: Date.now() + 300 })).toBe(grpc.status.DEADLINE_EXCEEDED);
      expect(await running).toBe(grpc.status.OK);
      await sleep(RUN_S * 1000 + 300);  // a request still queued would have run by now
      await idle(s, 'slow');
      expect(stats(s, 'slow').execution_count).toBe(before + 1);
      expect(await canceledCount(s, 'slow')).toBe(canceled + 1);
    }, 20_000);

    it('drops a queued ensemble request the gRPC client cancels (CANCELLED), and its queued step', async () => {
      const before = stats(s, 'slow').execution_count;
      const canceled = await canceledCount(s, 'slow_pipeline');
      const running = inferCode(client, 'slow', {});
      await sleep(100);
      const code = await inferCode(client, 'slow_pipeline', {}, (c) => setTimeout(() => c.cancel(), 300));
      expect(code).toBe(grpc.status.CANCELLED);
      expect(await running).toBe(grpc.status.OK);
      await sleep(RUN_S * 1000 + 300);
      await idle(s, 'slow');
      expect(stats(s, 'slow').execution_count).toBe(before + 1);
      expect(await canceledCount(s, 'slow_pipeline')).toBe(canceled + 1);
    }, 20_000);

    it('drops a queued Python request whose HTTP client resets its connection', async () => {
      const before = stats(s, 'slow').execution_count;
      const canceled = await canceledCount(s, 'slow');
      const running = inferCode(client, 'slow', {});
      await sleep(100);
      await httpInferThenReset(s.http, 'slow', 300, X_INPUT);
      expect(await running).toBe(grpc.status.OK);
      await sleep(RUN_S * 1000 + 300);
      await idle(s, 'slow');
      expect(stats(s, 'slow').execution_count).toBe(before + 1);
      expect(await canceledCount(s, 'slow')).toBe(canceled + 1);
    }, 20_000);

    it('still answers a request that waited behind another (nothing is cancelled without cause)', async () => {
      const before = stats(s, 'slow').execution_count;
      const codes = await Promise.all([inferCode(client, 'slow', {}), inferCode(client, 'slow_pipeline', { deadline: Date.now() + 10_000 })]);
      expect(codes).toEqual([grpc.status.OK, grpc.status.OK]);
      expect(stats(s, 'slow').execution_count).toBe(before + 2);
    }, 20_000);
  });
}

/**
 * Executor models hold a request in their native queue while the dynamic batcher waits for more
 * (max_queue_delay_microseconds: 3 s here, preferred batch 16): a request cancelled meanwhile is
 * dropped at once (pending 0 long before the delay ends) and never runs (execution_count 0).
 */
function executorRepository(): string {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-cancel-native-'));
  cpSync(path.join(repoRoot, 'templates/mnist'), path.join(repo, 'waiting'), { recursive: true });
  const mnist = readFileSync(path.join(repo, 'waiting', 'config.pbtxt'), 'utf8');
  writeFileSync(path.join(repo, 'waiting', 'config.pbtxt'), mnist
    .replace('name: "mnist"', 'name: "waiting"')
    .replace(/dynamic_batching \{[^}]*\}/, 'dynamic_batching { preferred_batch_size: [ 16 ] max_queue_delay_microseconds: 3000000 }')
    .replace(/count: 2/, 'count: 1'));
  writeModel(repo, 'waiting_pipeline', [
    'platform: "ensemble"', 'max_batch_size: 16',
    'input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]',
    'output [ { name: "logits" data_type: TYPE_FP32 dims: [ 10 ] } ]',
    'ensemble_scheduling { step [ { model_name: "waiting" model_version: -1 input_map { key: "image" value: "image" } output_map { key: "logits" value: "logits" } } ] }',
  ]);
  cpSync(path.join(repoRoot, 'fixtures/repositories/sequence-example/accumulator'), path.join(repo, 'accumulator'), { recursive: true });
  const seq = readFileSync(path.join(repo, 'accumulator', 'config.pbtxt'), 'utf8');
  writeFileSync(path.join(repo, 'accumulator', 'config.pbtxt'), seq.replace('max_queue_delay_microseconds: 500', 'max_queue_delay_microseconds: 3000000'));
  return repo;
}

const IMAGE = { name: 'image', shape: [1, 1, 28, 28], bytes: Buffer.alloc(784 * 4) };

describe('cancelling requests queued in the native scheduler: ensemble steps (queued by JS), sequence steps (by the native routes)', () => {
  let s: Served;
  let client: GrpcClient;
  beforeAll(async () => {
    s = await serve(executorRepository(), 'native');
    client = s.client;
  }, 60_000);
  afterAll(() => s?.stop());

  /** Until nothing waits in `model`'s queue; the milliseconds that took (bounded by 2.5 s, under the delay). */
  async function drained(model: string): Promise<number> {
    const start = Date.now();
    while (s.manager.resolve(model).pendingCount() > 0 && Date.now() - start < 2500) await sleep(20);
    return Date.now() - start;
  }

  it('an ensemble step waiting in an executor model\'s queue is dropped when the gRPC deadline passes', async () => {
    const failed = stats(s, 'waiting').inference_stats.fail.count;
    const canceled = await canceledCount(s, 'waiting_pipeline');
    const request = { model_name: 'waiting_pipeline', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [IMAGE.bytes] };
    expect(await grpcCode(client, request, { deadline: Date.now() + 300 })).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(await drained('waiting')).toBeLessThan(2500);
    expect(stats(s, 'waiting').execution_count).toBe(0);
    expect(stats(s, 'waiting').inference_stats.fail.count).toBe(failed + 1);
    expect(await canceledCount(s, 'waiting_pipeline')).toBe(canceled + 1);
  }, 20_000);

  it('an ensemble step waiting in an executor model\'s queue is dropped when the HTTP client resets', async () => {
    const failed = stats(s, 'waiting').inference_stats.fail.count;
    await httpInferThenReset(s.http, 'waiting_pipeline', 300, IMAGE);
    expect(await drained('waiting')).toBeLessThan(2500);
    expect(stats(s, 'waiting').execution_count).toBe(0);
    expect(stats(s, 'waiting').inference_stats.fail.count).toBe(failed + 1);
  }, 20_000);

  /** A whole sequence (START and END) of one step: cancelled, it also frees its sequence slot. */
  const sequenceStep = (id: number) => ({
    model_name: 'accumulator',
    parameters: { sequence_id: { uint64_param: id }, sequence_start: { bool_param: true }, sequence_end: { bool_param: true } },
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 4] }],
    raw_input_contents: [Buffer.from(new Float32Array([1, 2, 3, 4]).buffer)],
  });

  it('a sequence step waiting in the queue is dropped when the gRPC client cancels (CANCELLED)', async () => {
    const canceled = await canceledCount(s, 'accumulator');
    const request = sequenceStep(41);
    expect(await grpcCode(client, request, {}, (c) => setTimeout(() => c.cancel(), 300))).toBe(grpc.status.CANCELLED);
    expect(await drained('accumulator')).toBeLessThan(2500);
    expect(stats(s, 'accumulator').execution_count).toBe(0);
    expect(await canceledCount(s, 'accumulator')).toBe(canceled + 1);
    // The model goes on serving: the next sequence is answered once the batcher's delay ends.
    expect(await grpcCode(client, { ...request, parameters: { ...request.parameters, sequence_id: { uint64_param: 42 } } }, { deadline: Date.now() + 10_000 })).toBe(grpc.status.OK);
    expect(stats(s, 'accumulator').execution_count).toBe(1);
  }, 20_000);

  it('a sequence step the native gRPC route queued is dropped when its deadline passes (DEADLINE_EXCEEDED)', async () => {
    const ran = stats(s, 'accumulator').execution_count;
    const canceled = await canceledCount(s, 'accumulator');
    expect(await grpcCode(client, sequenceStep(43), { deadline: Date.now() + 300 })).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(await drained('accumulator')).toBeLessThan(2500);
    expect(stats(s, 'accumulator').execution_count).toBe(ran);
    expect(await canceledCount(s, 'accumulator')).toBe(canceled + 1);
  }, 20_000);

  it('a sequence step the native HTTP route queued is dropped when its client resets the connection', async () => {
    const front = s.server.http as NativeHttpFrontend;
    const forwarded = front.forwarded;
    const ran = stats(s, 'accumulator').execution_count;
    const canceled = await canceledCount(s, 'accumulator');
    const input = { name: 'INPUT', shape: [1, 4], bytes: Buffer.from(new Float32Array([1, 2, 3, 4]).buffer) };
    await httpInferThenReset(s.http, 'accumulator', 300, input, { sequence_id: 44, sequence_start: true, sequence_end: true });
    expect(await drained('accumulator')).toBeLessThan(2500);
    expect(stats(s, 'accumulator').execution_count).toBe(ran);
    expect(await canceledCount(s, 'accumulator')).toBe(canceled + 1);
    expect(front.forwarded).toBe(forwarded);  // taken and cancelled by the native route, never handed to JS
  }, 20_000);
});
