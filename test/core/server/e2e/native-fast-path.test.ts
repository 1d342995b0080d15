/**
 * The native front end with the native infer route behind it, on the real executor: binary and JSON
 * infer requests of published models are answered without JS (never handed to the JS handler), byte
 * for byte as the JS codec answers them; other requests go to the JS handler; pipelined answers of
 * both keep their order.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NativeHttpFrontend } from '../../../../src/core/server/http/native-frontend.js';
import { loadModel } from '../../../../src/core/executor/index.js';
import { DiskModelSource } from '../../../../src/core/server/disk-source.js';
import { silentLogger } from '../../../../src/core/server/logger.js';
import { ModelManager } from '../../../../src/core/server/model-manager.js';
import { GebeServer } from '../../../../src/core/server/server.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

let s: RealServer;
let jsOnly: GebeServer;
let jsHttp: string;

beforeAll(async () => {
  s = await startRealServer(mnistRepository());
  const manager = new ModelManager(new DiskModelSource(s.repo), loadModel, silentLogger, 'none');
  await manager.start();
  jsOnly = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, enableGrpc: false, enableMetrics: false, maxBodyBytes: 8 << 20, httpFrontend: 'node' }, silentLogger);
  jsHttp = `http://127.0.0.1:${(await jsOnly.listen()).http}`;
});
afterAll(async () => {
  await jsOnly?.stop(2000);
  await s?.stop();
});

function binaryRequest(rows: number): { body: Buffer; headerLength: number } {
  const header = Buffer.from(JSON.stringify({ id: `rows-${rows}`, inputs: [{ name: 'image', datatype: 'FP32', shape: [rows, 1, 28, 28], parameters: { binary_data_size: rows * 784 * 4 } }], outputs: [{ name: 'logits', parameters: { binary_data: true } }] }));
  const pixels = new Uint8Array(Float32Array.from({ length: rows * 784 }, (_, i) => ((i * 31) % 256) / 255).buffer);
  return { body: Buffer.concat([header, pixels]), headerLength: header.byteLength };
}

async function post(base: string, r: { body: Buffer; headerLength: number }): Promise<{ status: number; body: Buffer; headerLength: string | null; date: string | null }> {
  const res = await fetch(`${base}/v2/models/mnist/infer`, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(r.headerLength) }, body: r.body });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headerLength: res.headers.get('inference-header-content-length'), date: res.headers.get('date') };
}

/** RFC 9110's IMF-fixdate, as node:http writes it. */
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

describe('native infer route behind the native front end', () => {
  it('answers binary infer requests itself, exactly as the JS server does; forwards the rest', async () => {
    const front = s.server.http as NativeHttpFrontend;
    for (const rows of [1, 3]) {
      const before = front.forwarded;
      const native = await post(s.http, binaryRequest(rows));
      expect(front.forwarded).toBe(before);
      const js = await post(jsHttp, binaryRequest(rows));
      expect(native.status).toBe(200);
      expect(native.headerLength).toBe(js.headerLength);
      expect(native.body.equals(js.body)).toBe(true);
      // A server with a clock dates its answers (RFC 9110); the native one as node:http does.
      expect(native.date).toMatch(IMF_FIXDATE);
      expect(Math.abs(Date.parse(native.date!) - Date.now())).toBeLessThan(60_000);
    }
    const before = front.forwarded;
    expect((await fetch(`${s.http}/v2/models/mnist`)).status).toBe(200);
    expect(front.forwarded).toBe(before + 1);
  });

  it('answers JSON infer requests itself (JSON data in, JSON data out), exactly as the JS codec does', async () => {
    const front = s.server.http as NativeHttpFrontend;
    const data = Array.from({ length: 2 * 784 }, (_, i) => ((i * 31) % 256) / 255);
    for (const body of [
      { id: 'json', inputs: [{ name: 'image', datatype: 'FP32', shape: [2, 1, 28, 28], data }] },
      { inputs: [{ name: 'image', datatype: 'FP32', shape: [2, 1, 28, 28], data: [[data.slice(0, 784)], [data.slice(784)]] }], outputs: [{ name: 'logits' }] },
    ]) {
      const text = JSON.stringify(body);
      const before = front.forwarded;
      const native = await fetch(`${s.http}/v2/models/mnist/infer`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
      expect(front.forwarded).toBe(before);
      const js = await fetch(`${jsHttp}/v2/models/mnist/infer`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
      expect(native.status).toBe(200);
      expect(native.headers.get('content-type')).toBe('application/json');
      expect(await native.text()).toBe(await js.text());
    }
  });

  it('keeps the order of pipelined requests answered natively and by JS', async () => {
    const r = binaryRequest(1);
    const head = (close: boolean): string => `POST /v2/models/mnist/infer HTTP/1.1\r\nHost: x\r\nInference-Header-Content-Length: ${r.headerLength}\r\nContent-Length: ${r.body.byteLength}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const socket = net.connect(Number(new URL(s.http).port), '127.0.0.1', () => {
        socket.write(Buffer.concat([Buffer.from(head(false)), r.body, Buffer.from('GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n'), Buffer.from(head(true)), r.body]));
      });
      const chunks: Buffer[] = [];
      socket.on('data', (d: Buffer) => chunks.push(d));
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
    });
    const statuses = [...raw.toString('latin1').matchAll(/HTTP\/1\.1 (\d+) /g)].map((m) => Number(m[1]));
    expect(statuses).toEqual([200, 200, 200]);
    const text = raw.toString('latin1');
    expect(text.indexOf('"id":"rows-1"')).toBeLessThan(text.indexOf('Content-Length: 0'));
    expect(text.lastIndexOf('"id":"rows-1"')).toBeGreaterThan(text.indexOf('Content-Length: 0'));
  });
});
