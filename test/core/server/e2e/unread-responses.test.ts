/**
 * A client that stops reading a stream of responses costs the server a bounded amount, however
 * much the model sends: past twice --http-max-body of answers waiting for it on its connection,
 * its request is cancelled (model.py's is_cancelled() turns true) and what waits is let go. gRPC
 * streams end RESOURCE_EXHAUSTED, HTTP streams (their head already sent) are closed; the same on
 * the native front ends and on the TLS ones (grpc-js, node:http). The model loops inside execute()
 * on is_cancelled(), which turns while it runs. Real Python, real servers, raw HTTP/2 and TCP
 * clients that do not read.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeGrpcInferRequest } from '../../../../src/core/kserve/client/grpc.js';
import { unsentAnswersMessage } from '../../../../src/core/server/limits.js';
import { silentLogger } from '../../../../src/core/server/logger.js';
import { ModelManager } from '../../../../src/core/server/model-manager.js';
import { DiskModelSource } from '../../../../src/core/server/disk-source.js';
import { GebeServer } from '../../../../src/core/server/server.js';
import { loadModel } from '../../../../src/core/executor/index.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls-certs.js';
import { pythonForTests } from '../../../helpers/python-env.js';

const python = pythonForTests();
const MAX_BODY = 256 << 10;  // so the bound on unread answers is 512 KiB
const RESPONSES = 3000;      // what the model sends a request unread: 3000 × 64 KiB (more as JSON)
const ELEMENTS = 16384;

const CONFIG = [
  'name: "flood"', 'backend: "python"', 'max_batch_size: 0', 'model_transaction_policy { decoupled: true }',
  'input [ { name: "IN" data_type: TYPE_INT32 dims: [ 3 ] } ]', 'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]', '',
].join('\n');

// IN [tag, count, elements]: sends `count` responses of `elements` INT32 each, inside execute(),
// until its client's request is cancelled; then leaves a file saying how it ended and after how many.
const MODEL = [
  'import os', 'import numpy as np', 'import triton_python_backend_utils as pb_utils',
  'class TritonPythonModel:',
  '    def initialize(self, args):',
  '        self.dir = args["model_repository"]',
  '    def execute(self, requests):',
  '        for r in requests:',
  '            sender = r.get_response_sender()',
  '            tag, count, elements = pb_utils.get_input_tensor_by_name(r, "IN").as_numpy().tolist()',
  '            sent = 0',
  '            while sent < count and not r.is_cancelled():',
  '                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.full(elements, 1234567, np.int32))]))',
  '                sent += 1',
  '            ended = "cancelled" if r.is_cancelled() else "finished"',
  '            with open(os.path.join(self.dir, f"{ended}-{tag}"), "w") as f:',
  '                f.write(str(sent))',
  '            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)',
  '',
].join('\n');

let repo: string;
let manager: ModelManager;
let plain: GebeServer;
let secure: GebeServer;
let certs: TestCertificates;
const ports = { http: 0, grpc: 0, tlsHttp: 0, tlsGrpc: 0 };

/** How the model's run for `tag` ended, once it has: ['cancelled' | 'finished', responses sent]. */
async function ending(tag: number): Promise<[string, number]> {
  for (let i = 0; i < 3000; i++) {
    for (const how of ['cancelled', 'finished']) {
      const file = path.join(repo, 'flood', `${how}-${tag}`);
      if (existsSync(file) && readFileSync(file, 'utf8') !== '') return [how, Number(readFileSync(file, 'utf8'))];
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the model's run ${tag} did not end`);
}

/** Opens ModelStreamInfer for one request and reads nothing until the model's run has ended; then reads all. */
async function unreadGrpcStream(session: http2.ClientHttp2Session, tag: number) {
  const message = encodeGrpcInferRequest('flood', '', [{ name: 'IN', datatype: 'INT32', shape: [3], data: new Uint8Array(new Int32Array([tag, RESPONSES, ELEMENTS]).buffer) }], []);
  const framed = Buffer.alloc(5 + message.length);
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  const stream = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelStreamInfer', 'content-type': 'application/grpc', te: 'trailers' });
  stream.pause();
  stream.write(framed);  // the stream stays open: the client could send more requests
  const trailers = new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('trailers', resolve));
  const model = await ending(tag);
  let bytes = 0;
  stream.on('data', (d: Buffer) => (bytes += d.length));
  stream.resume();
  const status = await trailers;
  stream.close();
  return { model, bytes, status: [status['grpc-status'], decodeURIComponent(String(status['grpc-message']))] };
}

/** POSTs generate_stream on a socket that reads nothing until the model's run has ended; then reads to the close. */
async function unreadEventStream(connect: () => net.Socket, tag: number) {
  const socket = connect();
  socket.pause();
  const body = JSON.stringify({ IN: [tag, RESPONSES, ELEMENTS] });
  socket.write(`POST /v2/models/flood/generate_stream HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  const model = await ending(tag);
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.resume();
  await closed;
  const text = Buffer.concat(chunks).toString('latin1');
  return { model, bytes: text.length, complete: text.endsWith('\r\n0\r\n\r\n'), head: text.slice(0, text.indexOf('\r\n')) };
}

describe.skipIf(!python.available)('responses a client does not read', () => {
  beforeAll(async () => {
    repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-unread-'));
    mkdirSync(path.join(repo, 'flood', '1'), { recursive: true });
    writeFileSync(path.join(repo, 'flood', 'config.pbtxt'), CONFIG);
    writeFileSync(path.join(repo, 'flood', '1', 'model.py'), MODEL);
    manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
    await manager.start();
    const base = { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, enableMetrics: false, maxBodyBytes: MAX_BODY };
    plain = new GebeServer(manager, base, silentLogger);
    const p0 = await plain.listen();
    ports.http = p0.http!;
    ports.grpc = p0.grpc!;
    certs = makeTestCertificates();
    secure = new GebeServer(manager, { ...base, httpFrontend: 'node', grpcTls: { cert: certs.pem('server.pem'), key: certs.pem('server.key'), mutual: false } }, silentLogger);
    const p = await secure.listen();
    ports.tlsHttp = p.http!;
    ports.tlsGrpc = p.grpc!;
  });
  afterAll(async () => {
    await secure?.stop(1000);
    await plain?.stop(1000);
    certs?.remove();
    if (repo) rmSync(repo, { recursive: true, force: true });
  });

  const expectCut = (model: [string, number], bytes: number) => {
    expect(model[0]).toBe('cancelled');
    expect(model[1]).toBeLessThan(RESPONSES);
    expect(bytes).toBeLessThan(RESPONSES * 65536);
  };

  it('ends a gRPC stream RESOURCE_EXHAUSTED and cancels its request (native front end)', async () => {
    const session = http2.connect(`http://127.0.0.1:${ports.grpc}`);
    try {
      const cut = await unreadGrpcStream(session, 1);
      expectCut(cut.model, cut.bytes);
      expect(cut.status).toEqual(['8', unsentAnswersMessage(2 * MAX_BODY)]);
    } finally {
      session.close();
    }
  });

  it('closes an HTTP event stream and cancels its request (native front end)', async () => {
    const cut = await unreadEventStream(() => net.connect(ports.http, '127.0.0.1'), 2);
    expectCut(cut.model, cut.bytes);
    expect(cut.head).toBe('HTTP/1.1 200 OK');
    expect(cut.complete).toBe(false);
  });

  it('does the same on the TLS front ends (grpc-js and node:http)', async () => {
    const session = http2.connect(`https://localhost:${ports.tlsGrpc}`, { ca: certs.pem('ca.pem') });
    try {
      const cut = await unreadGrpcStream(session, 3);
      expectCut(cut.model, cut.bytes);
      expect(cut.status).toEqual(['8', unsentAnswersMessage(2 * MAX_BODY)]);
    } finally {
      session.close();
    }
    const sse = await unreadEventStream(() => net.connect(ports.tlsHttp, '127.0.0.1'), 4);
    expectCut(sse.model, sse.bytes);
    expect(sse.complete).toBe(false);
  });

  // A client reading in this process competes with the server's own JS for the event loop, so the
  // stream stays under the bound: no schedule can cut it off.
  it('lets a client that reads have every response', async () => {
    const res = await fetch(`http://127.0.0.1:${ports.http}/v2/models/flood/generate_stream`, { method: 'POST', body: JSON.stringify({ IN: [5, 200, 64] }) });
    const text = await res.text();
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(200);
    expect(await ending(5)).toEqual(['finished', 200]);
  });
});

