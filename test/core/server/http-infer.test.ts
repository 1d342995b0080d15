import http from 'node:http';
import net from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { binaryBody, postBinary, postJson } from './helpers/http-client.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ server: { maxBodyBytes: 64 * 1024, headersTimeoutMs: 300, timeoutCheckIntervalMs: 50 } });
});
afterAll(() => t.stop());

/** Sample JSON data and the same elements as little-endian bytes, per datatype. */
const SAMPLES: Record<string, { json: unknown[]; bytes: () => Uint8Array }> = {
  BOOL: { json: [true, false, true], bytes: () => Uint8Array.of(1, 0, 1) },
  UINT8: { json: [0, 7, 255], bytes: () => Uint8Array.of(0, 7, 255) },
  UINT16: { json: [0, 7, 65535], bytes: () => new Uint8Array(Uint16Array.of(0, 7, 65535).buffer) },
  UINT32: { json: [0, 7, 4294967295], bytes: () => new Uint8Array(Uint32Array.of(0, 7, 4294967295).buffer) },
  UINT64: { json: [0, 7, 9007199254740991], bytes: () => new Uint8Array(BigUint64Array.of(0n, 7n, 9007199254740991n).buffer) },
  INT8: { json: [-128, 0, 127], bytes: () => new Uint8Array(Int8Array.of(-128, 0, 127).buffer) },
  INT16: { json: [-32768, 0, 32767], bytes: () => new Uint8Array(Int16Array.of(-32768, 0, 32767).buffer) },
  INT32: { json: [-2147483648, 0, 2147483647], bytes: () => new Uint8Array(Int32Array.of(-2147483648, 0, 2147483647).buffer) },
  INT64: { json: [-9007199254740991, 0, 9007199254740991], bytes: () => new Uint8Array(BigInt64Array.of(-9007199254740991n, 0n, 9007199254740991n).buffer) },
  FP32: { json: [1.5, -2.25, 3], bytes: () => new Uint8Array(Float32Array.of(1.5, -2.25, 3).buffer) },
  FP64: { json: [0.1, -1e300, 3], bytes: () => new Uint8Array(Float64Array.of(0.1, -1e300, 3).buffer) },
  BYTES: { json: ['a', 'héllo', ''], bytes: () => Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.from('a'), Buffer.from([6, 0, 0, 0]), Buffer.from('héllo'), Buffer.from([0, 0, 0, 0])]) },
  FP16: { json: [], bytes: () => new Uint8Array(Uint16Array.of(0x3c00, 0xc000, 0x7bff).buffer) },
  BF16: { json: [], bytes: () => new Uint8Array(Uint16Array.of(0x3f80, 0xc000, 0x4049).buffer) },
};

describe('HTTP infer round trips per datatype', () => {
  for (const [dt, sample] of Object.entries(SAMPLES)) {
    const url = () => `${t.http}/v2/models/id_${dt.toLowerCase()}/infer`;
    if (dt !== 'FP16' && dt !== 'BF16') {
      it(`${dt}: JSON in, JSON out`, async () => {
        const res = await postJson(url(), { id: `req-${dt}`, inputs: [{ name: 'IN', datatype: dt, shape: [3], data: sample.json }] });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ model_name: `id_${dt.toLowerCase()}`, model_version: '1', id: `req-${dt}`, outputs: [{ name: 'OUT', datatype: dt, shape: [3], data: sample.json }] });
      });
    }
    it(`${dt}: binary in, binary out`, async () => {
      const { body, headerLength } = binaryBody({ outputs: [{ name: 'OUT', parameters: { binary_data: true } }] }, [{ name: 'IN', datatype: dt, shape: [3], bytes: sample.bytes() }]);
      const res = await postBinary(url(), body, headerLength);
      expect(res.status).toBe(200);
      expect(res.json.outputs[0]).toEqual({ name: 'OUT', datatype: dt, shape: [3], parameters: { binary_data_size: sample.bytes().byteLength } });
      expect(Buffer.compare(res.binary.get('OUT')!, Buffer.from(sample.bytes()))).toBe(0);
    });
    if (dt !== 'FP16' && dt !== 'BF16') {
      it(`${dt}: binary in, JSON out`, async () => {
        const { body, headerLength } = binaryBody({}, [{ name: 'IN', datatype: dt, shape: [3], bytes: sample.bytes() }]);
        const res = await postBinary(url(), body, headerLength);
        expect(res.status).toBe(200);
        expect(res.json.outputs[0].data).toEqual(sample.json);
      });
    }
  }

  it('refuses FP16 and BF16 as JSON, and sends them binary when the client did not choose', async () => {
    const res = await postJson(`${t.http}/v2/models/id_fp16/infer`, { inputs: [{ name: 'IN', datatype: 'FP16', shape: [1], data: [1] }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/FP16.*binary tensor data extension/);
    const { body, headerLength } = binaryBody({}, [{ name: 'IN', datatype: 'BF16', shape: [3], bytes: SAMPLES.BF16!.bytes() }]);
    const out = await postBinary(`${t.http}/v2/models/id_bf16/infer`, body, headerLength);
    expect(out.status).toBe(200);
    expect(out.binary.get('OUT')?.byteLength).toBe(6);
  });
});

describe('HTTP infer bodies and responses of every size', () => {
  const url = () => `${t.http}/v2/models/id_uint8/infer`;
  /** Every byte value, `n` bytes long. */
  const pattern = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) % 256);

  it('returns every byte value unchanged, in small (one write) and large (streamed) responses', async () => {
    for (const n of [256, 20_000, 60_000]) {
      const bytes = pattern(n);
      const { body, headerLength } = binaryBody({ outputs: [{ name: 'OUT', parameters: { binary_data: true } }] }, [{ name: 'IN', datatype: 'UINT8', shape: [n], bytes }]);
      const res = await postBinary(url(), body, headerLength);
      expect(res.status).toBe(200);
      expect(Buffer.compare(res.binary.get('OUT')!, Buffer.from(bytes))).toBe(0);
    }
  });

  it('answers with non-ASCII request ids in both binary and JSON responses', async () => {
    const bytes = pattern(10);
    const { body, headerLength } = binaryBody({ id: 'härte-测试', outputs: [{ name: 'OUT', parameters: { binary_data: true } }] }, [{ name: 'IN', datatype: 'UINT8', shape: [10], bytes }]);
    const res = await postBinary(url(), body, headerLength);
    expect(res.json.id).toBe('härte-测试');
    expect(Buffer.compare(res.binary.get('OUT')!, Buffer.from(bytes))).toBe(0);
    const json = await postJson(url(), { id: 'härte-测试', inputs: [{ name: 'IN', datatype: 'UINT8', shape: [2], data: [1, 2] }] });
    expect(json.body).toMatchObject({ id: 'härte-测试', outputs: [{ data: [1, 2] }] });
  });

  it('decodes a header it has seen before with each request\'s own bytes, and still checks the body size', async () => {
    const header = { id: 'same', outputs: [{ name: 'OUT', parameters: { binary_data: true } }] };
    for (let round = 0; round < 5; round++) {
      const bytes = Uint8Array.from({ length: 64 }, (_, i) => (i + round * 13) % 256);
      const { body, headerLength } = binaryBody(header, [{ name: 'IN', datatype: 'UINT8', shape: [64], bytes }]);
      const res = await postBinary(url(), body, headerLength);
      expect(res.json.id).toBe('same');
      expect(Buffer.compare(res.binary.get('OUT')!, Buffer.from(bytes))).toBe(0);
    }
    const { body, headerLength } = binaryBody(header, [{ name: 'IN', datatype: 'UINT8', shape: [64], bytes: new Uint8Array(64) }]);
    const short = await postBinary(url(), body.subarray(0, body.byteLength - 1), headerLength);
    expect(short.status).toBe(400);
    expect(short.json.error).toMatch(/binary_data_size 64 but only 63 bytes/);
    const long = await postBinary(url(), Buffer.concat([body, Buffer.from([1])]), headerLength);
    expect(long.status).toBe(400);
    expect(long.json.error).toMatch(/unexpected 1 bytes of binary data after the last input/);
  });

  it('reads bodies that arrive in many pieces, with and without Content-Length', async () => {
    const bytes = pattern(30_000);
    const { body, headerLength } = binaryBody({ outputs: [{ name: 'OUT', parameters: { binary_data: true } }] }, [{ name: 'IN', datatype: 'UINT8', shape: [30_000], bytes }]);
    for (const declared of [true, false]) {
      const headers: Record<string, string> = { 'Inference-Header-Content-Length': String(headerLength) };
      if (declared) headers['Content-Length'] = String(body.byteLength);
      const answer = await new Promise<Buffer>((resolve, reject) => {
        const req = http.request(url(), { method: 'POST', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        });
        req.on('error', reject);
        let offset = 0;
        const next = (): void => {
          if (offset >= body.byteLength) {
            req.end();
            return;
          }
          req.write(body.subarray(offset, offset + 4000));
          offset += 4000;
          setTimeout(next, 2);
        };
        next();
      });
      const json = JSON.parse(answer.toString('utf8', 0, answer.indexOf('}]}') + 3));
      expect(json.outputs[0].parameters.binary_data_size).toBe(30_000);
      expect(Buffer.compare(answer.subarray(answer.byteLength - 30_000), Buffer.from(bytes))).toBe(0);
    }
  });
});

describe('HTTP infer options', () => {
  const inputs = [
    { name: 'INPUT0', datatype: 'FP32', shape: [2, 4], data: [[1, 2, 3, 4], [5, 6, 7, 8]] },
    { name: 'INPUT1', datatype: 'FP32', shape: [2, 4], data: [0, 0, 0, 0, 1, 1, 1, 1] },
  ];

  it('accepts nested data and returns the outputs asked for', async () => {
    const res = await postJson(`${t.http}/v2/models/simple/infer`, { inputs, outputs: [{ name: 'OUTPUT1' }] });
    expect(res.status).toBe(200);
    expect(res.body.outputs).toEqual([{ name: 'OUTPUT1', datatype: 'FP32', shape: [2, 4], data: [0, 0, 0, 0, 1, 1, 1, 1] }]);
    expect(res.body.id).toBeUndefined();
  });

  it('honours binary_data_output at request level and binary_data per output', async () => {
    const res = await fetch(`${t.http}/v2/models/simple/versions/1/infer`, { method: 'POST', body: JSON.stringify({ inputs, parameters: { binary_data_output: true }, outputs: [{ name: 'OUTPUT0' }, { name: 'OUTPUT1', parameters: { binary_data: false } }] }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    const buf = Buffer.from(await res.arrayBuffer());
    const headerLength = Number(res.headers.get('inference-header-content-length'));
    const json = JSON.parse(buf.toString('utf8', 0, headerLength));
    expect(json.model_version).toBe('1');
    expect(json.outputs[0].parameters).toEqual({ binary_data_size: 32 });
    expect(json.outputs[1].data).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(Array.from(new Float32Array(buf.buffer.slice(buf.byteOffset + headerLength, buf.byteOffset + headerLength + 32)))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('passes priority and timeout, and checks them', async () => {
    expect((await postJson(`${t.http}/v2/models/simple/infer`, { inputs, parameters: { priority: 1, timeout: 100000 } })).status).toBe(200);
    const bad = await postJson(`${t.http}/v2/models/simple/infer`, { inputs, parameters: { priority: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/'priority' must be a non-negative integer/);
  });
});

describe('HTTP infer errors', () => {
  const cases: Array<[string, unknown, number, RegExp]> = [
    ['bad JSON', '{"inputs": [', 400, /failed to parse the request JSON/],
    ['no inputs', { inputs: [] }, 400, /non-empty 'inputs'/],
    ['unknown input', { inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }] }, 400, /unexpected inference input 'X'/],
    ['wrong datatype', { inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1, 4], data: [1, 2, 3, 4] }] }, 400, /data-type is 'INT32', but model 'simple' expects 'FP32'/],
    ['unknown datatype', { inputs: [{ name: 'INPUT0', datatype: 'FLOAT', shape: [1, 4], data: [1, 2, 3, 4] }] }, 400, /unknown datatype "FLOAT"/],
    ['too few elements', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3] }] }, 400, /unexpected number of elements 3/],
    ['too many elements', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4, 5] }] }, 400, /unexpected number of elements 5/],
    ['string element', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 'x'] }] }, 400, /element 3 of input 'INPUT0' is "x"/],
    ['negative dim', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [-1, 4], data: [] }] }, 400, /invalid dimension -1/],
    ['huge shape', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [100000, 100000, 100000], data: [1] }] }, 400, /more than 2147483648 elements/],
    ['wrong shape', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] }, { name: 'INPUT1', datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] }] }, 400, /unexpected shape for input 'INPUT0' for model 'simple'/],
    ['unknown output', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }, { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }], outputs: [{ name: 'NOPE' }] }, 400, /unexpected inference output 'NOPE' for model 'simple'; its outputs are /],
  ];
  for (const [name, body, status, message] of cases) {
    it(`answers ${status} for ${name}`, async () => {
      const res = await postJson(`${t.http}/v2/models/simple/infer`, body);
      expect(res.status).toBe(status);
      expect(res.body.error).toMatch(message);
    });
  }

  it('answers 404 for unknown models and versions, 503 for models that are not ready', async () => {
    const body = { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }] };
    expect((await postJson(`${t.http}/v2/models/nope/infer`, body)).status).toBe(404);
    expect((await postJson(`${t.http}/v2/models/simple/versions/9/infer`, body)).status).toBe(404);
    const broken = await postJson(`${t.http}/v2/models/broken/infer`, body);
    expect(broken.status).toBe(503);
    expect(broken.body.error).toMatch(/has no available versions/);
  });

  it('checks the binary extension sizes against the body and the shapes', async () => {
    const f32 = new Uint8Array(new Float32Array(4).buffer);
    const good = binaryBody({}, [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], bytes: f32 }, { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], bytes: f32 }]);
    const url = `${t.http}/v2/models/simple/infer`;
    expect((await postBinary(url, good.body, good.headerLength)).status).toBe(200);
    const lying = await fetch(url, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(good.body.byteLength + 10) }, body: good.body });
    expect(lying.status).toBe(400);
    expect(((await lying.json()) as { error: string }).error).toMatch(/Inference-Header-Content-Length is \d+ but the body has only/);
    const truncated = await fetch(url, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(good.headerLength) }, body: good.body.subarray(0, good.body.byteLength - 5) });
    expect(((await truncated.json()) as { error: string }).error).toMatch(/input 'INPUT1' declares binary_data_size 16 but only 11 bytes of binary data remain/);
    const extra = await fetch(url, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(good.headerLength) }, body: Buffer.concat([good.body, Buffer.alloc(3)]) });
    expect(((await extra.json()) as { error: string }).error).toMatch(/unexpected 3 bytes of binary data after the last input/);
    const wrongSize = binaryBody({}, [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], bytes: f32.subarray(0, 12) }, { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], bytes: f32 }]);
    expect((await postBinary(url, wrongSize.body, wrongSize.headerLength)).json.error).toBe("input byte size mismatch for input 'INPUT0' for model 'simple'. Expected 16, got 12");
    const badHeader = await fetch(url, { method: 'POST', headers: { 'Inference-Header-Content-Length': 'abc' }, body: good.body });
    expect(badHeader.status).toBe(400);
  });

  it('refuses truncated BYTES elements', async () => {
    const bytes = Buffer.from([5, 0, 0, 0, 97]);
    const req = binaryBody({}, [{ name: 'IN', datatype: 'BYTES', shape: [1], bytes }]);
    const res = await postBinary(`${t.http}/v2/models/id_bytes/infer`, req.body, req.headerLength);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("incomplete string for inference input 'IN' for model 'id_bytes', expecting 5 bytes but only 1 bytes available");
  });

  it('answers 503 when the queue is full', async () => {
    const body = { inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
      { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
    ] };
    const model = t.models.get('queued/1')!;
    let open!: () => void;
    model.gate = new Promise((r) => (open = r));
    const first = postJson(`${t.http}/v2/models/queued/infer`, body);
    while (model.pendingCount() === 0) await new Promise((r) => setTimeout(r, 2));
    const rejected = await Promise.all([0, 1].map(() => postJson(`${t.http}/v2/models/queued/infer`, body)));
    open();
    model.gate = undefined;
    expect((await first).status).toBe(200);
    expect(rejected.map((r) => r.status)).toEqual([503, 503]);
    expect(rejected[0]!.body.error).toMatch(/Exceeds maximum queue size/);
  });
});

describe('HTTP request compression', () => {
  const body = JSON.stringify({ inputs: [
    { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
    { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [5, 6, 7, 8] },
  ] });

  it('accepts gzip and deflate bodies, and refuses broken or oversized ones', async () => {
    for (const [encoding, data] of [['gzip', gzipSync(body)], ['deflate', deflateSync(body)]] as const) {
      const res = await fetch(`${t.http}/v2/models/simple/infer`, { method: 'POST', headers: { 'Content-Encoding': encoding }, body: data });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).outputs[1].data).toEqual([5, 6, 7, 8]);
    }
    const broken = await fetch(`${t.http}/v2/models/simple/infer`, { method: 'POST', headers: { 'Content-Encoding': 'gzip' }, body: 'not gzip' });
    expect(broken.status).toBe(400);
    const bomb = await fetch(`${t.http}/v2/models/simple/infer`, { method: 'POST', headers: { 'Content-Encoding': 'gzip' }, body: gzipSync(Buffer.alloc(1 << 20)) });
    expect(bomb.status).toBe(413);
    const br = await fetch(`${t.http}/v2/models/simple/infer`, { method: 'POST', headers: { 'Content-Encoding': 'br' }, body });
    expect(br.status).toBe(400);
    expect(((await br.json()) as any).error).toMatch(/unsupported Content-Encoding 'br'/);
  });
});

describe('HTTP limits', () => {
  it('answers 413 for a declared body over the limit without reading it', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${t.http}/v2/models/simple/infer`, { method: 'POST', headers: { 'Content-Length': String(100 * 1024 * 1024) } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.write(Buffer.alloc(1024)); // only a sliver of the declared 100 MiB is ever sent
    });
    expect(status).toBe(413);
  });

  it('answers 413 for a chunked body once it passes the limit', async () => {
    const result = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${t.http}/v2/models/simple/infer`, { method: 'POST' }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', () => undefined); // the server closes the connection after answering
      // 40 chunks of 16 KB at most, whatever write() returns. Counting only the writes that
      // returned true let the body grow without end (a 16 KB write never does): while the server
      // drained it, each write finished at once and the next 'drain' came before any read, so now
      // and then the answer went unread until the server gave up lingering (1 in 14 runs).
      const chunk = Buffer.alloc(16 * 1024, 32);
      let sent = 0;
      const pump = (): void => {
        while (sent < 40 && !req.destroyed) {
          sent++;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
      };
      pump();
      setTimeout(() => reject(new Error('no answer')), 5000).unref();
    });
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body).error).toMatch(/exceeds the limit of 65536 bytes/);
  });

  it('times out clients that send headers too slowly', async () => {
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(new URL(t.http).port), '127.0.0.1', () => socket.write('GET /v2/health/live HTTP/1.1\r\nHost: x\r\n'));
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('close', () => resolve(data));
    });
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect((await fetch(`${t.http}/v2/health/live`)).status).toBe(200);
  });
});
