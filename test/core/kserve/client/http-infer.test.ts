import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpInfer } from '../../../../src/core/kserve/client/http-infer.js';

/** A server on port 0 that answers each path with a crafted response, to check the client's guards. */
let server: http.Server;
let base: string;
const replies: Record<string, { status: number; header?: object; raw?: string; tail?: Buffer }> = {
  '/ok': { status: 200, header: { outputs: [{ name: 'y', datatype: 'INT32', shape: [2], parameters: { binary_data_size: 8 } }] }, tail: Buffer.from(Int32Array.from([3, -4]).buffer) },
  '/overrun': { status: 200, header: { outputs: [{ name: 'y', datatype: 'FP32', shape: [4], parameters: { binary_data_size: 1 << 20 } }] }, tail: Buffer.alloc(16) },
  '/json-output': { status: 200, header: { outputs: [{ name: 'y', datatype: 'FP32', shape: [1], data: [1] }] } },
  '/error': { status: 400, header: { error: "unexpected shape for input 'x'" } },
  '/html': { status: 502, raw: '<html>bad gateway</html>' },
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const r = replies[req.url!]!;
      if (r.raw !== undefined) {
        res.writeHead(r.status).end(r.raw);
        return;
      }
      const json = Buffer.from(JSON.stringify(r.header));
      const headers: Record<string, number> = r.tail ? { 'Inference-Header-Content-Length': json.length } : {};
      res.writeHead(r.status, headers).end(Buffer.concat([json, r.tail ?? Buffer.alloc(0)]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const x = [{ name: 'x', datatype: 'FP32' as const, shape: [1], data: new Uint8Array(4) }];

describe('httpInfer', () => {
  it('decodes binary outputs', async () => {
    const [y] = await httpInfer(base, '/ok', x, ['y']);
    expect(y!.shape).toEqual([2]);
    expect(Array.from(new Int32Array(y!.data.buffer, y!.data.byteOffset, 2))).toEqual([3, -4]);
  });

  it('turns every malformed or failed answer into one error message', async () => {
    await expect(httpInfer(base, '/overrun', x, ['y'])).rejects.toThrow('binary_data_size 1048576, beyond the');
    await expect(httpInfer(base, '/json-output', x, ['y'])).rejects.toThrow('sent output "y" as JSON although binary data was requested');
    await expect(httpInfer(base, '/error', x, ['y'])).rejects.toThrow("answered HTTP 400 to an inference request: unexpected shape for input 'x'");
    await expect(httpInfer(base, '/html', x, ['y'])).rejects.toThrow('answered HTTP 502 with a body that is not KServe v2 JSON: <html>bad gateway</html>');
    await expect(httpInfer('127.0.0.1:1', '/ok', x, ['y'])).rejects.toThrow(/127\.0\.0\.1:1/);
  });
});
