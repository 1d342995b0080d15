import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { call, callError, grpcClient, streamInfer, type GrpcClient } from './helpers/grpc-client.js';

let t: TestServer;
let client: GrpcClient;
let health: GrpcClient;
beforeAll(async () => {
  t = await startTestServer({ mode: 'explicit', load: ['*'] });
  client = grpcClient(t.grpc);
  health = grpcClient(t.grpc, 'grpc.health.v1.Health');
});
afterAll(async () => {
  client.close();
  health.close();
  await t.stop();
});

const f32 = (...v: number[]) => Buffer.from(new Float32Array(v).buffer);
const simpleInputs = [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4] },
  { name: 'INPUT1', datatype: 'FP32', shape: [1, 4] },
];

describe('gRPC health and metadata', () => {
  it('answers ServerLive, ServerReady, ModelReady', async () => {
    expect(await call(client, 'ServerLive', {})).toEqual({ live: true });
    expect(await call(client, 'ServerReady', {})).toEqual({ ready: false }); // 'broken' failed to load
    expect(await call(client, 'ModelReady', { name: 'simple' })).toEqual({ ready: true });
    expect(await call(client, 'ModelReady', { name: 'simple', version: '2' })).toEqual({ ready: true });
    expect(await call(client, 'ModelReady', { name: 'broken' })).toEqual({ ready: false });
    expect((await callError(client, 'ModelReady', { name: 'nope' })).code).toBe(status.NOT_FOUND);
  });

  it('answers grpc.health.v1 Check', async () => {
    expect(await call(health, 'Check', { service: '' })).toEqual({ status: 'NOT_SERVING' });
    expect((await callError(health, 'Check', { service: 'other' })).code).toBe(status.NOT_FOUND);
  });

  it('answers ServerMetadata and ModelMetadata', async () => {
    const server = await call(client, 'ServerMetadata', {});
    expect(server.name).toBe('gebe');
    expect(server.extensions).toContain('binary_tensor_data');
    const model = await call(client, 'ModelMetadata', { name: 'simple', version: '1' });
    expect(model).toEqual({
      name: 'simple', versions: ['1', '2'], platform: 'ge',
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [-1, 4] }, { name: 'INPUT1', datatype: 'FP32', shape: [-1, 4] }],
      outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [-1, 4] }, { name: 'OUTPUT1', datatype: 'FP32', shape: [-1, 4] }],
    });
    const missing = await callError(client, 'ModelMetadata', { name: 'nope' });
    expect(missing.code).toBe(status.NOT_FOUND);
    expect(missing.details).toBe("Request for unknown model: 'nope' is not found");
    expect((await callError(client, 'ModelMetadata', { name: 'simple', version: 'x' })).code).toBe(status.INVALID_ARGUMENT);
  });

  it('answers ModelConfig with the ModelConfig message', async () => {
    const res = await call(client, 'ModelConfig', { name: 'simple' });
    expect(res.config).toMatchObject({ name: 'simple', max_batch_size: 8, backend: 'ge' });
    expect(res.config.input[0]).toMatchObject({ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [4] });
  });

  it('answers ModelStatistics for one model and for all', async () => {
    await call(client, 'ModelInfer', { model_name: 'simple', inputs: simpleInputs, raw_input_contents: [f32(1, 2, 3, 4), f32(1, 2, 3, 4)] });
    const one = await call(client, 'ModelStatistics', { name: 'simple', version: '2' });
    expect(one.model_stats[0]).toMatchObject({ name: 'simple', version: '2', inference_count: 1, execution_count: 1 });
    expect(one.model_stats[0].inference_stats.success.count).toBe(1);
    const all = await call(client, 'ModelStatistics', {});
    expect(all.model_stats.length).toBeGreaterThan(10);
    expect((await callError(client, 'ModelStatistics', { name: 'nope' })).code).toBe(status.NOT_FOUND);
  });

  it('answers RepositoryIndex, RepositoryModelLoad and RepositoryModelUnload', async () => {
    const index = await call(client, 'RepositoryIndex', {});
    expect(index.models).toContainEqual({ name: 'simple', version: '1', state: 'READY', reason: '' });
    await call(client, 'RepositoryModelUnload', { model_name: 'id_int8' });
    expect(await call(client, 'ModelReady', { name: 'id_int8' })).toEqual({ ready: false });
    await call(client, 'RepositoryModelLoad', { model_name: 'id_int8' });
    expect(await call(client, 'ModelReady', { name: 'id_int8' })).toEqual({ ready: true });
    const config = JSON.stringify({ name: 'id_int8', backend: 'ge', input: [{ name: 'A', data_type: 'TYPE_INT8', dims: [2] }], output: [{ name: 'B', data_type: 'TYPE_INT8', dims: [2] }] });
    await call(client, 'RepositoryModelLoad', { model_name: 'id_int8', parameters: { config: { string_param: config } } });
    expect((await call(client, 'ModelMetadata', { name: 'id_int8' })).inputs).toEqual([{ name: 'A', datatype: 'INT8', shape: [2] }]);
    await call(client, 'RepositoryModelLoad', { model_name: 'id_int8' }); // back to the repository's config
    expect((await call(client, 'ModelMetadata', { name: 'id_int8' })).inputs).toEqual([{ name: 'IN', datatype: 'INT8', shape: [-1] }]);
    const missing = await callError(client, 'RepositoryModelLoad', { model_name: 'nope' });
    expect(missing.code).toBe(status.NOT_FOUND);
  });

  it('answers INVALID_ARGUMENT for bytes that are not the request message', async () => {
    const raw = await new Promise<{ code: number; details: string }>((resolve) => {
      client.makeUnaryRequest('/inference.GRPCInferenceService/ModelInfer', (b: Buffer) => b, (b: Buffer) => b, Buffer.from([0x0a, 0xff, 0xff, 0x01]), (err) => resolve(err as never));
    });
    expect(raw.code).toBe(status.INVALID_ARGUMENT);
    expect(raw.details).toMatch(/not a valid inference.ModelInferRequest message/);
  });

  it('refuses TraceSetting where the server was made without tracing (gebe serve always traces)', async () => {
    const err = await callError(client, 'TraceSetting', {});
    expect([err.code, err.details]).toEqual([status.INVALID_ARGUMENT, 'the server does not support tracing']);
  });

  it('answers the shared-memory RPCs: no region yet, none of CUDA ever (no GPUs)', async () => {
    expect(await call(client, 'SystemSharedMemoryStatus', {})).toEqual({ regions: {} });
    expect(await call(client, 'CudaSharedMemoryStatus', {})).toEqual({ regions: {} });
    expect(await call(client, 'CudaSharedMemoryUnregister', { name: 'g' })).toEqual({});
    const missing = await callError(client, 'CudaSharedMemoryStatus', { name: 'g' });
    expect([missing.code, missing.details]).toEqual([status.NOT_FOUND, "Unable to find cuda shared memory region: 'g'"]);
    const refused = await callError(client, 'CudaSharedMemoryRegister', { name: 'g', device_id: 0, byte_size: 64 });
    expect([refused.code, refused.details]).toEqual([status.UNIMPLEMENTED, "failed to register CUDA shared memory region: 'g', GPUs not supported (gebe serve: use system shared memory, or send the tensors in the request)"]);
  });
});

describe('gRPC ModelInfer', () => {
  it('runs raw_input_contents and returns raw_output_contents', async () => {
    const res = await call(client, 'ModelInfer', {
      model_name: 'simple', id: 'r1', inputs: simpleInputs,
      outputs: [{ name: 'OUTPUT1' }],
      parameters: { priority: { int64_param: 1 }, timeout: { int64_param: 5000 } },
      raw_input_contents: [f32(1, 2, 3, 4), f32(5, 6, 7, 8)],
    });
    expect(res).toMatchObject({ model_name: 'simple', model_version: '2', id: 'r1', outputs: [{ name: 'OUTPUT1', datatype: 'FP32', shape: [1, 4] }] });
    expect(Array.from(new Float32Array(new Uint8Array(res.raw_output_contents[0]).buffer))).toEqual([5, 6, 7, 8]);
  });

  const typed: Array<[string, string, unknown[]]> = [
    ['BOOL', 'bool_contents', [true, false]],
    ['INT8', 'int_contents', [-128, 127]],
    ['INT16', 'int_contents', [-300, 300]],
    ['INT32', 'int_contents', [-5, 2147483647]],
    ['INT64', 'int64_contents', [-9007199254740991, 42]],
    ['UINT8', 'uint_contents', [0, 255]],
    ['UINT16', 'uint_contents', [1, 65535]],
    ['UINT32', 'uint_contents', [1, 4294967295]],
    ['UINT64', 'uint64_contents', [0, 9007199254740991]],
    ['FP32', 'fp32_contents', [1.5, -2.25]],
    ['FP64', 'fp64_contents', [0.1, -1e300]],
    ['BYTES', 'bytes_contents', [Buffer.from('ab'), Buffer.from('')]],
  ];
  for (const [dt, field, values] of typed) {
    it(`${dt}: typed contents in, raw out`, async () => {
      const res = await call(client, 'ModelInfer', { model_name: `id_${dt.toLowerCase()}`, inputs: [{ name: 'IN', datatype: dt, shape: [2], contents: { [field]: values } }] });
      expect(res.outputs[0]).toMatchObject({ name: 'OUT', datatype: dt, shape: [2] });
      const raw = new Uint8Array(res.raw_output_contents[0]);
      const echoed = await call(client, 'ModelInfer', { model_name: `id_${dt.toLowerCase()}`, inputs: [{ name: 'IN', datatype: dt, shape: [2] }], raw_input_contents: [raw] });
      expect(Buffer.compare(echoed.raw_output_contents[0], Buffer.from(raw))).toBe(0);
    });
  }

  it('decodes typed contents to the same bytes as the HTTP JSON path', async () => {
    const res = await call(client, 'ModelInfer', { model_name: 'id_int16', inputs: [{ name: 'IN', datatype: 'INT16', shape: [2], contents: { int_contents: [-300, 300] } }] });
    expect(Array.from(new Int16Array(new Uint8Array(res.raw_output_contents[0]).buffer))).toEqual([-300, 300]);
  });

  const errors: Array<[string, object, number, RegExp]> = [
    ['unknown model', { model_name: 'nope', inputs: simpleInputs, raw_input_contents: [f32(1, 2, 3, 4), f32(1, 2, 3, 4)] }, status.NOT_FOUND, /unknown model: 'nope'/],
    ['model not ready', { model_name: 'broken', inputs: simpleInputs, raw_input_contents: [f32(1, 2, 3, 4), f32(1, 2, 3, 4)] }, status.UNAVAILABLE, /no available versions/],
    ['raw count mismatch', { model_name: 'simple', inputs: simpleInputs, raw_input_contents: [f32(1, 2, 3, 4)] }, status.INVALID_ARGUMENT, /raw_input_contents has 1 entries but the request has 2 inputs/],
    ['raw size mismatch', { model_name: 'simple', inputs: simpleInputs, raw_input_contents: [f32(1, 2, 3), f32(1, 2, 3, 4)] }, status.INVALID_ARGUMENT, /input byte size mismatch for input 'INPUT0' for model 'simple'. Expected 16, got 12/],
    ['raw and contents', { model_name: 'simple', inputs: [{ ...simpleInputs[0], contents: { fp32_contents: [1, 2, 3, 4] } }, simpleInputs[1]], raw_input_contents: [f32(1, 2, 3, 4), f32(1, 2, 3, 4)] }, status.INVALID_ARGUMENT, /sets contents.fp32_contents while the request uses raw_input_contents/],
    ['wrong contents field', { model_name: 'id_fp32', inputs: [{ name: 'IN', datatype: 'FP32', shape: [1], contents: { int_contents: [1] } }] }, status.INVALID_ARGUMENT, /belongs in contents.fp32_contents/],
    ['contents count', { model_name: 'id_fp32', inputs: [{ name: 'IN', datatype: 'FP32', shape: [3], contents: { fp32_contents: [1] } }] }, status.INVALID_ARGUMENT, /unexpected number of elements 1 in contents.fp32_contents/],
    ['fp16 typed', { model_name: 'id_fp16', inputs: [{ name: 'IN', datatype: 'FP16', shape: [1] }] }, status.INVALID_ARGUMENT, /send it in raw_input_contents/],
    ['no inputs', { model_name: 'simple' }, status.INVALID_ARGUMENT, /at least one input/],
    ['wrong shape', { model_name: 'simple', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [4] }, { name: 'INPUT1', datatype: 'FP32', shape: [4] }], raw_input_contents: [f32(1, 2, 3, 4), f32(1, 2, 3, 4)] }, status.INVALID_ARGUMENT, /unexpected shape for input 'INPUT0'/],
    ['int8 out of range', { model_name: 'id_int8', inputs: [{ name: 'IN', datatype: 'INT8', shape: [1], contents: { int_contents: [300] } }] }, status.INVALID_ARGUMENT, /outside the range of INT8/],
  ];
  for (const [name, request, code, message] of errors) {
    it(`fails with ${status[code]} for ${name}`, async () => {
      const err = await callError(client, 'ModelInfer', request);
      expect(err.code).toBe(code);
      expect(err.details).toMatch(message);
    });
  }

  it('answers RESOURCE_EXHAUSTED when the queue is full', async () => {
    const req = { model_name: 'queued', inputs: simpleInputs, raw_input_contents: [f32(1, 2, 3, 4), f32(1, 2, 3, 4)] };
    const model = t.models.get('queued/1')!;
    let open!: () => void;
    model.gate = new Promise((r) => (open = r));
    const first = call(client, 'ModelInfer', req);
    while (model.pendingCount() === 0) await new Promise((r) => setTimeout(r, 2));
    const err = await callError(client, 'ModelInfer', req);
    open();
    model.gate = undefined;
    await first;
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(err.details).toMatch(/Exceeds maximum queue size/);
  });
});

describe('gRPC ModelStreamInfer', () => {
  it('answers every request on the stream, errors in-band', async () => {
    const responses = await streamInfer(client, [
      { model_name: 'simple', id: 'a', inputs: simpleInputs, raw_input_contents: [f32(1, 2, 3, 4), f32(0, 0, 0, 0)] },
      { model_name: 'nope', id: 'b', inputs: simpleInputs, raw_input_contents: [f32(1, 2, 3, 4), f32(0, 0, 0, 0)] },
      { model_name: 'simple', id: 'c', inputs: simpleInputs, raw_input_contents: [f32(9, 9, 9, 9), f32(0, 0, 0, 0)] },
    ]);
    const byId = new Map(responses.map((r) => [r.infer_response.id, r]));
    expect(byId.get('a').error_message).toBe('');
    expect(Array.from(new Float32Array(new Uint8Array(byId.get('c').infer_response.raw_output_contents[0]).buffer))).toEqual([9, 9, 9, 9]);
    expect(byId.get('b').error_message).toMatch(/unknown model: 'nope'/);
    // Each is its request's only response: Triton's final flag on every one, errors included.
    expect(responses.map((r) => r.infer_response.parameters.triton_final_response)).toEqual([
      expect.objectContaining({ bool_param: true }), expect.objectContaining({ bool_param: true }), expect.objectContaining({ bool_param: true }),
    ]);
  });
});
