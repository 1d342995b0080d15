import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { fuzzGrpc, fuzzHttp, heapAfterGc } from './helpers/fuzz.js';
import { rawRequest } from './helpers/raw-http.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

const f32 = (...v: number[]) => new Uint8Array(new Float32Array(v).buffer);
const inputs = [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], bytes: f32(1, 2, 3, 4) },
  { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], bytes: f32(5, 6, 7, 8) },
];

async function validRequestWorks(): Promise<void> {
  const res = await rawRequest(t.http, 'POST', '/v2/models/simple/infer', {}, Buffer.from(JSON.stringify({ inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: i.shape, data: Array.from(new Float32Array(i.bytes.buffer)) })) })));
  expect(res.status).toBe(200);
  expect(JSON.parse(res.body.toString()).outputs[0].data).toEqual([1, 2, 3, 4]);
}

describe('fuzzing the protocol layer (in-JS model)', () => {
  it('answers thousands of malformed HTTP requests with 4xx errors, keeps serving, and keeps memory flat', async () => {
    expect(await fuzzHttp(t.http, 'simple', inputs, 500, 1)).toEqual([]);
    const before = heapAfterGc();
    expect(await fuzzHttp(t.http, 'simple', inputs, 1500, 2)).toEqual([]);
    const after = heapAfterGc();
    await validRequestWorks();
    // Memory flat: 1,500 more bad requests leave no more than a few MiB behind (no per-request leak).
    expect(after - before).toBeLessThan(8 * 1024 * 1024);
  });

  it('answers thousands of malformed gRPC messages with gRPC errors and keeps serving', async () => {
    expect(await fuzzGrpc(t.grpc, 'simple', inputs, 1000, 3)).toEqual([]);
    await validRequestWorks();
  });
});
