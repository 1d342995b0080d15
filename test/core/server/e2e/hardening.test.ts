/**
 * Issue 13's reproductions that concern configs, paths and requests, each against a real server on
 * port 0 with real sockets: bounded load configs, paths out of the model directory, failed reloads,
 * NaN outputs, string shapes, huge shapes in error messages.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryBody, getJson, postBinary, postJson } from '../helpers/http-client.js';
import { call, callError, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { bytesToJsonText } from '../../../../src/core/kserve/codec/json-tensor.js';
import { OnnxGraphBuilder } from '../../../helpers/onnx-builder.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

let s: RealServer;
let client: GrpcClient;
const load = (model: string, config?: object | string) =>
  postJson(`${s.http}/v2/repository/models/${model}/load`, config === undefined ? {} : { parameters: { config: typeof config === 'string' ? config : JSON.stringify(config) } });
const mnistConfig = (extra: object = {}) => ({
  name: 'mnist', backend: 'ge', max_batch_size: 16,
  input: [{ name: 'image', data_type: 'TYPE_FP32', dims: [1, 28, 28] }],
  output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [10] }],
  ...extra,
});
const image = (value: number) => new Uint8Array(new Float32Array(784).fill(value).buffer);
const inferBinary = (pixels: Uint8Array) => {
  const { body, headerLength } = binaryBody({ outputs: [{ name: 'logits', parameters: { binary_data: true } }] }, [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], bytes: pixels }]);
  return postBinary(`${s.http}/v2/models/mnist/infer`, body, headerLength);
};
const inferStatus = async () => (await inferBinary(image(0.5))).status;

beforeAll(async () => {
  // An identity model with a dynamic dimension whose config promises 4 outputs: a request of 3 makes it break the promise.
  const identity = new OnnxGraphBuilder().input('x', 'FLOAT', ['n']).output('y', 'FLOAT', ['n']).node('Identity', ['x'], ['y']).encode();
  const repo = mnistRepository({
    liar: {
      config: 'name: "liar"\nbackend: "ge"\ninput [ { name: "x", data_type: TYPE_FP32, dims: [ -1 ] } ]\noutput [ { name: "y", data_type: TYPE_FP32, dims: [ 4 ] } ]\n',
      model: identity,
    },
  });
  mkdirSync(path.join(repo, 'outside'), { recursive: true });
  writeFileSync(path.join(repo, 'outside', 'secret.onnx'), 'not a model');
  s = await startRealServer(repo, 'explicit');
  expect((await load('mnist')).status).toBe(200);
  expect((await load('liar')).body).toEqual({});
  client = grpcClient(s.grpc);
});
afterAll(async () => {
  client?.close();
  await s?.stop();
});

describe('load-API configs are bounded (item 2, item 6)', () => {
  it('refuses a million instances with the field and the bound, and keeps serving', async () => {
    const r = await load('mnist', mnistConfig({ instance_group: [{ count: 1_000_000 }] }));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/CONFIG_LIMIT the instance count \(instance_group count, summed\) is 1000000, over the limit of 128 instances per model/);
    expect(await inferStatus()).toBe(200);
  });

  it('refuses a deeply nested config with a 400 naming the limit, not a 500', async () => {
    const deep = `{"name":"mnist","parameters":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const r = await load('mnist', deep);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/more than 200 levels deep/);
  });

  it('refuses a 6 MB config (over the 4 MiB a config may have) before parsing it, with the size limit', async () => {
    const rssBefore = process.memoryUsage().rss;
    const flat = JSON.stringify(mnistConfig({ parameters: { junk: { string_value: 'x'.repeat(6 << 20) } } }));
    const r = await load('mnist', flat);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/over the limit of 4194304 bytes for a config/);
    // Memory: the request's own bytes (6 MB, held a few times over by fetch and the server), never a parse of them.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 << 20);
  });
});

describe('paths a config names stay inside the model directory (item 3)', () => {
  it('refuses default_model_filename with .. with one message that names no outside path', async () => {
    for (const name of ['../../outside/secret.onnx', '../../outside/missing.onnx', '/etc/passwd']) {
      const r = await load('mnist', mnistConfig({ default_model_filename: name }));
      expect(r.status).toBe(400);
      expect(r.body.error).toContain(`default_model_filename "${name}" is not a path inside the model directory`);
      expect(r.body.error, r.body.error).not.toMatch(/does not exist|not an ONNX model|wire type|protobuf/i);
    }
    expect(await inferStatus()).toBe(200);
  });

  it('refuses a model file symlinked out of the model directory, and label files the same way', async () => {
    symlinkSync(path.join(s.repo, 'outside', 'secret.onnx'), path.join(s.repo, 'mnist', '1', 'linked.onnx'));
    const r = await load('mnist', mnistConfig({ default_model_filename: 'linked.onnx' }));
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('default_model_filename "linked.onnx" is not a path inside the model directory');
    const labels = await load('mnist', mnistConfig({ output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [10], label_filename: '../outside/secret.onnx' }] }));
    expect(labels.status).toBe(400);
    expect(labels.body.error).toContain('label_filename "../outside/secret.onnx" is not a path inside the model directory');
    rmSync(path.join(s.repo, 'mnist', '1', 'linked.onnx'));
  });

  it("refuses 'file:' overrides without echoing a long name", async () => {
    const r = await postJson(`${s.http}/v2/repository/models/mnist/load`, { parameters: { [`file:${'../'.repeat(1000)}x`]: 'AAAA' } });
    expect(r.status).toBe(400);
    expect(r.body.error.length).toBeLessThan(400);
  });
});

describe('a symlink to / in a model directory (item 5)', () => {
  it('is reported at load, quickly, instead of searching the whole file system', async () => {
    const dir = path.join(s.repo, 'rooted');
    mkdirSync(path.join(dir, '1'), { recursive: true });
    writeFileSync(path.join(dir, 'config.pbtxt'), 'name: "rooted"\nbackend: "ge"\n');
    symlinkSync('/', path.join(dir, '1', 'root'));
    const r = await load('rooted');
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('SYMLINK_OUTSIDE_REPOSITORY rooted/1/root is a symlink to a directory outside the model repository; gebe does not follow it');
    expect(await inferStatus()).toBe(200);
  });
});

describe('a failed reload leaves the working model serving (item 7)', () => {
  it('keeps version 1 READY when the reload names a missing file or a broken model', async () => {
    expect(await inferStatus()).toBe(200);
    const missing = await load('mnist', mnistConfig({ default_model_filename: 'missing.onnx' }));
    expect(missing.status).toBe(400);
    expect(await inferStatus()).toBe(200);
    writeFileSync(path.join(s.repo, 'mnist', '1', 'broken.onnx'), Buffer.from('this is not an onnx file'));
    const broken = await load('mnist', mnistConfig({ default_model_filename: 'broken.onnx' }));
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatch(/the versions that were serving keep serving|MODEL_FILE_INVALID/);
    expect(await inferStatus()).toBe(200);
    expect((await getJson(`${s.http}/v2/models/mnist/ready`)).status).toBe(200);
    rmSync(path.join(s.repo, 'mnist', '1', 'broken.onnx'));
  });

  it('answers every request accepted while a reload swaps versions', async () => {
    const sent = Array.from({ length: 200 }, () => inferBinary(image(0.25)));
    const reload = load('mnist', mnistConfig({ dynamic_batching: { max_queue_delay_microseconds: 2000 } }));
    const more = Array.from({ length: 200 }, () => inferBinary(image(0.75)));
    const answers = await Promise.all([...sent, ...more]);
    expect((await reload).body).toEqual({});
    expect(answers.filter((a) => a.status !== 200).map((a) => a.json.error)).toEqual([]);
  });
});

describe('requests (item 8)', () => {
  it('returns the outputs of a model that computes NaN, over HTTP binary, HTTP JSON and gRPC', async () => {
    const binary = await inferBinary(image(Number.NaN));
    expect(binary.status).toBe(200);
    const logits = Array.from(new Float32Array(Uint8Array.from(binary.binary.get('logits')!).buffer));
    expect(logits.length).toBe(10);
    const { body, headerLength } = binaryBody({}, [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], bytes: image(Number.POSITIVE_INFINITY) }]);
    const res = await fetch(`${s.http}/v2/models/mnist/infer`, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(headerLength) }, body });
    expect(res.status).toBe(200);
    // Triton writes non-finite floats as the literals NaN / Infinity / -Infinity.
    expect(JSON.parse(await res.text()).outputs[0].data).toHaveLength(10);
    const grpcAnswer = await call(client, 'ModelInfer', { model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [Buffer.from(image(Number.NaN))] });
    expect(grpcAnswer.raw_output_contents[0].length).toBe(40);
  });

  it('writes non-finite outputs as Triton does: the literals NaN, Infinity, -Infinity', () => {
    const bytes = new Uint8Array(Float32Array.from([1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]).buffer);
    expect(bytesToJsonText('FP32', bytes, 'y')).toBe('[1.5,NaN,Infinity,-Infinity]');
  });

  it('refuses shapes given as strings', async () => {
    for (const dim of ['1', '0x1', '1e0']) {
      const r = await postJson(`${s.http}/v2/models/mnist/infer`, { inputs: [{ name: 'image', datatype: 'FP32', shape: [dim, 1, 28, 28], data: new Array(784).fill(0) }] });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/invalid dimension .* at index 0; dimensions are non-negative integers/);
    }
  });

  it('quotes at most a bounded prefix of a million-entry shape, over HTTP and gRPC', async () => {
    const shape = new Array(1_000_000).fill(1);
    const r = await postJson(`${s.http}/v2/models/mnist/infer`, { inputs: [{ name: 'image', datatype: 'FP32', shape, data: [0] }] });
    expect(r.status).toBe(400);
    expect(r.body.error.length).toBeLessThan(1000);
    const err = await callError(client, 'ModelInfer', { model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape }], raw_input_contents: [Buffer.alloc(4)] });
    expect(err.code).toBe(3); // INVALID_ARGUMENT, not a metadata overflow
    expect(err.details.length).toBeLessThan(1000);
  });

  it('answers an output whose shape disagrees with the config as an error, over HTTP and gRPC', async () => {
    const ok = await postJson(`${s.http}/v2/models/liar/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] }] });
    expect(ok.status).toBe(200);
    const r = await postJson(`${s.http}/v2/models/liar/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [3], data: [1, 2, 3] }] });
    expect(r.status).toBe(500);
    expect(r.body.error).toBe("output 'y' of model 'liar' has shape [3], but its config declares [4]; fix dims in config.pbtxt or the model");
    // A binary request, which the native front end answers without JS: the same check, in the native core.
    const { body, headerLength } = binaryBody({ outputs: [{ name: 'y', parameters: { binary_data: true } }] }, [{ name: 'x', datatype: 'FP32', shape: [3], bytes: new Uint8Array(12) }]);
    const binary = await postBinary(`${s.http}/v2/models/liar/infer`, body, headerLength);
    expect(binary.status).toBe(500);
    expect(binary.json.error).toBe("output 'y' of model 'liar' has shape [3], but its config declares [4]; fix dims in config.pbtxt or the model");
    const err = await callError(client, 'ModelInfer', { model_name: 'liar', inputs: [{ name: 'x', datatype: 'FP32', shape: [3] }], raw_input_contents: [Buffer.alloc(12)] });
    expect(err.details).toContain("output 'y' of model 'liar' has shape [3]");
  });
});

describe('--max-instances-per-model raises the instance bound for serve (item 2)', () => {
  it('lets a DiskModelSource with a raised limit read a config that the default refuses', async () => {
    const { DiskModelSource } = await import('../../../../src/core/server/disk-source.js');
    const override = { ...mnistConfig({ instance_group: [{ count: 200 }] }) } as never;
    const byDefault = await new DiskModelSource(s.repo).read('mnist', override);
    expect(byDefault!.errors.join('\n')).toMatch(/CONFIG_LIMIT .* is 200, over the limit of 128/);
    const raised = await new DiskModelSource(s.repo, { instancesPerModel: 256 }).read('mnist', override);
    expect(raised!.errors.filter((e) => e.includes('CONFIG_LIMIT'))).toEqual([]);
  });
});
