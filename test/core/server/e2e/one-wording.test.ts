/**
 * One bad request, one message: the same set of requests that break the model's contract goes
 * through HTTP JSON, HTTP binary (the native route), gRPC and the in-process executor of a real
 * server over the real MNIST model, and every path must answer with the very same text (the
 * native core's Normalize words them once) and the matching status. A bad sequence parameter is
 * refused for models without sequence_batching too (as Triton's front ends refuse it), natively
 * served or run by JS (an ensemble).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InferRequest, LoadedModel } from '../../../../src/core/executor/types.js';
import { call, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

interface Tensor {
  name: string;
  datatype: 'FP32' | 'FP64';
  shape: number[];
  data: Uint8Array;
}
interface BadRequest {
  inputs: Tensor[];
  outputs?: string[];
  priority?: number;
  /** false: JSON `data` cannot say it (its element count is the codec's to check). */
  json?: boolean;
}

function pixels(rows: number, datatype: Tensor['datatype'] = 'FP32', elements = rows * 784): Uint8Array {
  const values = Array.from({ length: elements }, (_, i) => (i % 255) / 255);
  return new Uint8Array(datatype === 'FP32' ? Float32Array.from(values).buffer : Float64Array.from(values).buffer);
}
const image = (rows: number, extra: Partial<Tensor> = {}): Tensor => ({ name: 'image', datatype: 'FP32', shape: [rows, 1, 28, 28], data: pixels(rows), ...extra });

const BAD: Array<[string, BadRequest, string]> = [
  ['unknown input', { inputs: [image(1, { name: 'pixels' })] }, "unexpected inference input 'pixels' for model 'mnist'; its inputs are 'image'"],
  ['wrong datatype', { inputs: [image(1, { datatype: 'FP64', data: pixels(1, 'FP64') })] }, "inference input 'image' data-type is 'FP64', but model 'mnist' expects 'FP32'"],
  ['shape without the batch dimension', { inputs: [image(1, { shape: [1, 28, 28] })] }, "unexpected shape for input 'image' for model 'mnist'. Expected [-1,1,28,28], got [1,28,28]. NOTE: Setting a non-zero max_batch_size"],
  ['wrong dimension', { inputs: [image(1, { shape: [1, 1, 28, 27], data: pixels(1, 'FP32', 28 * 27) })] }, "unexpected shape for input 'image' for model 'mnist'. Expected [-1,1,28,28], got [1,1,28,27]."],
  ['batch over max_batch_size', { inputs: [image(17)] }, "inference request batch-size must be <= 16 for 'mnist'"],
  ['batch of zero', { inputs: [image(0)] }, "inference request batch-size must be >= 1 for 'mnist'"],
  ['input twice', { inputs: [image(1), image(1)] }, "input 'image' appears more than once in the request for model 'mnist'"],
  ['unknown output', { inputs: [image(1)], outputs: ['probs'] }, "unexpected inference output 'probs' for model 'mnist'; its outputs are 'logits'"],
  ['output twice', { inputs: [image(1)], outputs: ['logits', 'logits'] }, "output 'logits' is requested more than once in the request for model 'mnist'"],
  ['negative priority', { inputs: [image(1)], priority: -1 }, "request parameter 'priority' must be a non-negative integer, got -1"],
  ['byte size', { inputs: [image(1, { data: pixels(1).subarray(0, 3132) })], json: false }, "input byte size mismatch for input 'image' for model 'mnist'. Expected 3136, got 3132"],
];

let real: RealServer;
let grpc: GrpcClient;
let model: LoadedModel;

/** The repository: MNIST and an ensemble over it (a model JS runs, checked by the same Normalize). */
function repository(): string {
  const repo = mnistRepository();
  mkdirSync(path.join(repo, 'mnist_pipeline', '1'), { recursive: true });
  writeFileSync(path.join(repo, 'mnist_pipeline', 'config.pbtxt'), [
    'name: "mnist_pipeline"', 'platform: "ensemble"', 'max_batch_size: 16',
    'input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]',
    'output [ { name: "logits" data_type: TYPE_FP32 dims: [ 10 ] } ]',
    'ensemble_scheduling { step [ { model_name: "mnist" model_version: -1 input_map { key: "image" value: "image" } output_map { key: "logits" value: "logits" } } ] }',
    '',
  ].join('\n'));
  return repo;
}

beforeAll(async () => {
  real = await startRealServer(repository());
  grpc = grpcClient(real.grpc);
  model = real.manager.resolve('mnist');
});
afterAll(async () => {
  grpc?.close();
  await real?.stop();
});

const values = (t: Tensor): number[] => Array.from(t.datatype === 'FP32'
  ? new Float32Array(t.data.buffer, t.data.byteOffset, t.data.byteLength / 4)
  : new Float64Array(t.data.buffer, t.data.byteOffset, t.data.byteLength / 8));

async function viaHttpJson(r: BadRequest): Promise<[number, string]> {
  const body = {
    inputs: r.inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape, data: values(t) })),
    ...(r.outputs ? { outputs: r.outputs.map((name) => ({ name })) } : {}),
    ...(r.priority !== undefined ? { parameters: { priority: r.priority } } : {}),
  };
  const res = await fetch(`${real.http}/v2/models/mnist/infer`, { method: 'POST', body: JSON.stringify(body) });
  return [res.status, ((await res.json()) as { error: string }).error];
}

async function viaHttpBinary(r: BadRequest): Promise<[number, string]> {
  const header = Buffer.from(JSON.stringify({
    inputs: r.inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape, parameters: { binary_data_size: t.data.byteLength } })),
    outputs: (r.outputs ?? ['logits']).map((name) => ({ name, parameters: { binary_data: true } })),
    ...(r.priority !== undefined ? { parameters: { priority: r.priority } } : {}),
  }));
  const res = await fetch(`${real.http}/v2/models/mnist/infer`, {
    method: 'POST',
    headers: { 'Inference-Header-Content-Length': String(header.byteLength) },
    body: Buffer.concat([header, ...r.inputs.map((t) => t.data)]),
  });
  return [res.status, ((await res.json()) as { error: string }).error];
}

async function viaGrpc(r: BadRequest): Promise<[number, string]> {
  const request = {
    model_name: 'mnist',
    inputs: r.inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
    raw_input_contents: r.inputs.map((t) => Buffer.from(t.data)),
    outputs: (r.outputs ?? []).map((name) => ({ name })),
    ...(r.priority !== undefined ? { parameters: { priority: { int64_param: r.priority } } } : {}),
  };
  try {
    await call(grpc, 'ModelInfer', request);
  } catch (err) {
    const e = err as { code: number; details: string };
    return [e.code, e.details];
  }
  throw new Error('the gRPC request was expected to fail');
}

async function viaInProcess(r: BadRequest): Promise<string> {
  const request: InferRequest = { inputs: r.inputs, ...(r.outputs ? { outputs: r.outputs } : {}), ...(r.priority !== undefined ? { priority: r.priority } : {}) };
  try {
    await model.infer(request);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the in-process request was expected to fail');
}

describe('the same bad request reads the same on every path', () => {
  for (const [what, request, expected] of BAD) {
    it(what, async () => {
      const inProcess = await viaInProcess(request);
      expect(inProcess.startsWith(expected), inProcess).toBe(true);
      const binary = await viaHttpBinary(request);
      const grpcAnswer = await viaGrpc(request);
      expect(binary).toEqual([400, inProcess]);
      expect(grpcAnswer).toEqual([GrpcStatus.INVALID_ARGUMENT, inProcess]);
      if (request.json !== false) expect(await viaHttpJson(request)).toEqual([400, inProcess]);
    });
  }

  it('a good request still succeeds on every path (the set above is not refused for another reason)', async () => {
    const good: BadRequest = { inputs: [image(2)] };
    expect((await model.infer({ inputs: good.inputs })).outputs[0]!.shape).toEqual([2, 10]);
    const res = await call(grpc, 'ModelInfer', { model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape: [2, 1, 28, 28] }], raw_input_contents: [Buffer.from(pixels(2))] });
    expect(res.outputs[0].shape.map(Number)).toEqual([2, 10]);
  });
});

describe('a bad sequence parameter reads the same for models without sequence_batching', () => {
  const expected = "request parameter 'sequence_start' must be a boolean, got 1";
  for (const name of ['mnist', 'mnist_pipeline']) {
    it(`${name}: HTTP JSON, HTTP binary, gRPC and in process`, async () => {
      const data = Array.from({ length: 784 }, () => 0);
      const json = await fetch(`${real.http}/v2/models/${name}/infer`, {
        method: 'POST',
        body: JSON.stringify({ parameters: { sequence_id: 3, sequence_start: 1 }, inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data }] }),
      });
      expect([json.status, ((await json.json()) as { error: string }).error]).toEqual([400, expected]);
      const header = Buffer.from(JSON.stringify({ parameters: { sequence_start: 1 }, inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], parameters: { binary_data_size: 784 * 4 } }] }));
      const binary = await fetch(`${real.http}/v2/models/${name}/infer`, {
        method: 'POST', headers: { 'Inference-Header-Content-Length': String(header.byteLength) }, body: Buffer.concat([header, Buffer.alloc(784 * 4)]),
      });
      expect([binary.status, ((await binary.json()) as { error: string }).error]).toEqual([400, expected]);
      const request = {
        model_name: name, parameters: { sequence_start: { int64_param: 1 } },
        inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [Buffer.alloc(784 * 4)],
      };
      await expect(call(grpc, 'ModelInfer', request)).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT, details: expected });
      const local = { inputs: [image(1)], sequenceStart: 1 } as unknown as InferRequest;
      await expect(real.manager.resolve(name).infer(local)).rejects.toThrow(expected);
    });
  }
});
