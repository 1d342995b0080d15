/**
 * Triton's system shared-memory extension on a real server and a real model (MNIST): a client
 * puts an image in a POSIX shared-memory object, registers windows of it, and names them in an
 * infer request's input and output parameters over HTTP (JSON and binary) and gRPC; the logits
 * arrive in the client's memory and equal those of an ordinary request. The native front ends
 * hand such requests to the JS path (they decode no region). Bad keys, windows and sizes are
 * refused in Triton's words.
 */
import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { getJson, postJson } from '../helpers/http-client.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

const key = `/shm-test-${process.pid}`;
const file = `/dev/shm${key}`;
const IMAGE_BYTES = 784 * 4;
const LOGITS_BYTES = 10 * 4;
// The object: the image at 0, then room for three answers' logits.
const pixels = new Float32Array(784).map((_, i) => ((i * 37) % 255) / 255);
const image = { name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] };

let server: RealServer;
let grpc: GrpcClient;
let expected: number[];

const logitsAt = (offset: number): number[] => [...new Float32Array(Uint8Array.from(readFileSync(file).subarray(offset, offset + LOGITS_BYTES)).buffer)];
const inShm = (region = 'in', extra = {}) => ({ ...image, parameters: { shared_memory_region: region, shared_memory_byte_size: IMAGE_BYTES, ...extra } });
const outShm = (offset: number, size = LOGITS_BYTES) => ({ name: 'logits', parameters: { shared_memory_region: 'out', shared_memory_byte_size: size, shared_memory_offset: offset } });
/** Zeroes the answers' part of the object, so what a request writes there is its own. */
function clearAnswers(): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(3 * 64), 0, 3 * 64, IMAGE_BYTES);
  closeSync(fd);
}
const register = (name: string, body: Record<string, unknown>) => postJson(`${server.http}/v2/systemsharedmemory/region/${name}/register`, body);

beforeAll(async () => {
  const fd = openSync(file, 'w+', 0o600);
  writeSync(fd, Buffer.from(pixels.buffer));
  writeSync(fd, Buffer.alloc(3 * 64));
  closeSync(fd);
  server = await startRealServer(mnistRepository());
  grpc = grpcClient(server.grpc);
  const plain = await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [{ ...image, data: [...pixels] }] });
  expected = plain.body.outputs[0].data;
});
afterAll(async () => {
  grpc?.close();
  await server?.stop();
  rmSync(file, { force: true });
});

describe('system shared memory (Triton\'s extension)', () => {
  it('registers windows of an object and lists them', async () => {
    expect((await register('in', { key, offset: 0, byte_size: IMAGE_BYTES })).status).toBe(200);
    expect((await call(grpc, 'SystemSharedMemoryRegister', { name: 'out', key, offset: IMAGE_BYTES, byte_size: 3 * 64 }))).toEqual({});
    expect(await getJson(`${server.http}/v2/systemsharedmemory/status`)).toEqual({
      status: 200, body: [{ name: 'in', key, offset: 0, byte_size: IMAGE_BYTES }, { name: 'out', key, offset: IMAGE_BYTES, byte_size: 192 }],
    });
    const one = await call(grpc, 'SystemSharedMemoryStatus', { name: 'out' }) as { regions: Record<string, Record<string, unknown>> };
    expect(Object.keys(one.regions)).toEqual(['out']);
    expect((await getJson(`${server.http}/v2`)).body.extensions).toContain('system_shared_memory');
  });

  it('reads inputs from and writes outputs to the regions over HTTP JSON, HTTP binary and gRPC', async () => {
    const json = await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [inShm()], outputs: [outShm(0)] });
    expect(json).toEqual({ status: 200, body: { model_name: 'mnist', model_version: '1', outputs: [{ name: 'logits', datatype: 'FP32', shape: [1, 10], parameters: { shared_memory_region: 'out', shared_memory_byte_size: 40 } }] } });
    expect(logitsAt(IMAGE_BYTES)).toEqual(expected);

    // The binary extension with no tensor bytes after the header: the input is in the region, the output travels binary.
    const header = Buffer.from(JSON.stringify({ inputs: [inShm()], outputs: [{ name: 'logits', parameters: { binary_data: true } }] }));
    const binary = await fetch(`${server.http}/v2/models/mnist/infer`, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(header.length) }, body: header });
    const answer = Buffer.from(await binary.arrayBuffer());
    const headerLength = Number(binary.headers.get('inference-header-content-length'));
    expect([...new Float32Array(Uint8Array.from(answer.subarray(headerLength)).buffer)]).toEqual(expected);

    const rpc = await call(grpc, 'ModelInfer', { model_name: 'mnist', inputs: [{ ...image, parameters: { shared_memory_region: { string_param: 'in' }, shared_memory_byte_size: { int64_param: IMAGE_BYTES } } }],
      outputs: [{ name: 'logits', parameters: { shared_memory_region: { string_param: 'out' }, shared_memory_byte_size: { int64_param: 64 }, shared_memory_offset: { int64_param: 64 } } }] }) as { outputs: Array<{ parameters: Record<string, Record<string, unknown>> }>; raw_output_contents: unknown[] };
    expect(rpc.raw_output_contents).toEqual([]);
    expect(rpc.outputs[0]!.parameters.shared_memory_region!.string_param).toBe('out');
    expect(logitsAt(IMAGE_BYTES + 64)).toEqual(expected);

    // Only the output in shared memory: the native routes, which would answer these, hand them on too.
    clearAnswers();
    const outOnly = await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [{ ...image, data: [...pixels] }], outputs: [outShm(128)] });
    expect(outOnly.body.outputs[0].parameters).toEqual({ shared_memory_region: 'out', shared_memory_byte_size: 40 });
    expect(logitsAt(IMAGE_BYTES + 128)).toEqual(expected);
    const rawIn = await call(grpc, 'ModelInfer', { model_name: 'mnist', inputs: [image], raw_input_contents: [Buffer.from(pixels.buffer)],
      outputs: [{ name: 'logits', parameters: { shared_memory_region: { string_param: 'out' }, shared_memory_byte_size: { int64_param: 64 } } }] }) as { raw_output_contents: unknown[] };
    expect(rawIn.raw_output_contents).toEqual([]);
    expect(logitsAt(IMAGE_BYTES)).toEqual(expected);
  });

  it('refuses what Triton refuses, in its words', async () => {
    const infer = (body: object) => postJson(`${server.http}/v2/models/mnist/infer`, body);
    expect((await infer({ inputs: [inShm('nope')] })).body.error).toBe("Unable to find shared memory region: 'nope'");
    expect((await infer({ inputs: [inShm('in', { shared_memory_offset: 4 })] })).body.error).toBe("Invalid offset + byte size for shared memory region: 'in'");
    expect((await infer({ inputs: [inShm()], outputs: [outShm(0, 8)] })).body.error).toBe("shared memory size specified with the request for output 'logits' (8 bytes) should be at least 40 bytes to hold the results");
    expect((await infer({ inputs: [{ ...inShm(), data: [1] }] })).body.error).toBe("input 'image' names shared memory region 'in' and also carries data; send its elements one way");
    expect((await infer({ inputs: [{ ...image, parameters: { shared_memory_region: 'in' } }] })).body.error).toMatch(/without 'shared_memory_byte_size'/);
    const rpc = await callError(grpc, 'ModelInfer', { model_name: 'mnist', inputs: [{ ...image, parameters: { shared_memory_region: { string_param: 'nope' }, shared_memory_byte_size: { int64_param: 4 } } }] });
    expect([rpc.code, rpc.details]).toEqual([5, "Unable to find shared memory region: 'nope'"]);
    const both = await callError(grpc, 'ModelInfer', { model_name: 'mnist', inputs: [{ ...image, contents: { fp32_contents: [...pixels] }, parameters: { shared_memory_region: { string_param: 'in' }, shared_memory_byte_size: { int64_param: IMAGE_BYTES } } }] });
    expect([both.code, both.details]).toEqual([3, "input 'image' names shared memory region 'in' and also carries data; send its elements one way"]);

    expect((await register('in', { key, byte_size: 4 })).body.error).toBe("shared memory region 'in' already in manager");
    expect((await register('big', { key, offset: 0, byte_size: 1 << 20 })).body.error).toMatch(/^failed to register shared memory region 'big': invalid args/);
    expect((await register('up', { key: '/../etc/passwd', byte_size: 4 })).body.error).toMatch(/^Unable to open shared memory region: '\/\.\.\/etc\/passwd'/);
    expect((await register('missing', { key: '/no-such-object', byte_size: 4 })).body.error).toBe("Unable to open shared memory region: '/no-such-object'");
    const own = `/dev/shm/gebe-python-${process.pid}-test`;
    writeFileSync(own, Buffer.alloc(64));
    try {
      expect((await register('arena', { key: `/gebe-python-${process.pid}-test`, byte_size: 64 })).body.error).toMatch(/keys beginning with '\/gebe-' are gebe's own shared memory/);
    } finally {
      rmSync(own, { force: true });
    }
    expect((await register('nokey', { byte_size: 4 })).body.error).toBe("Shared memory register request has no 'key' field");
    expect((await getJson(`${server.http}/v2/systemsharedmemory/region/nope/status`))).toEqual({ status: 404, body: { error: "Unable to find system shared memory region: 'nope'" } });
    const cuda = await postJson(`${server.http}/v2/cudasharedmemory/region/g/register`, { raw_handle: { b64: '' }, device_id: 0, byte_size: 4 });
    expect(cuda.body.error).toMatch(/^failed to register CUDA shared memory region: 'g', GPUs not supported/);
  });

  it('unregisters one region or all; a request then finds none', async () => {
    expect((await fetch(`${server.http}/v2/systemsharedmemory/region/out/unregister`, { method: 'POST' })).status).toBe(200);
    expect((await getJson(`${server.http}/v2/systemsharedmemory/status`)).body.map((r: { name: string }) => r.name)).toEqual(['in']);
    expect(await call(grpc, 'SystemSharedMemoryUnregister', { name: '' })).toEqual({});
    expect((await getJson(`${server.http}/v2/systemsharedmemory/status`)).body).toEqual([]);
    expect((await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [inShm()] })).body.error).toBe("Unable to find shared memory region: 'in'");
  });
});
