/**
 * The native gRPC front end (native/src/grpc/) with real clients: HTTP/2 edge cases from a raw
 * node:http2 session and a raw socket (many concurrent streams, a client that vanishes mid-message,
 * oversize and compressed messages, bad frames, a flood of RST_STREAM), h2load when installed,
 * and request cancellation: a queued ModelInfer whose client resets its stream or passes its
 * deadline leaves the queue and is counted in nv_inference_request_failure.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcRoot, serviceDefinition } from '../../../src/core/kserve/grpc-proto.js';
import { DEFAULT_GRPC_KEEPALIVE } from '../../../src/core/server/grpc/server.js';
import { call, callError, grpcClient, streamInfer, type GrpcClient } from './helpers/grpc-client.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { mnistRepository, repoRoot, startRealServer, type RealServer } from './e2e/helpers.js';

const INFER = '/inference.GRPCInferenceService/ModelInfer';
const LIVE = '/inference.GRPCInferenceService/ServerLive';

function frame(type: string, value: object): Buffer {
  const t = grpcRoot().lookupType(type);
  const bytes = Buffer.from(t.encode(t.fromObject(value)).finish());
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([prefix, bytes]);
}

interface RawAnswer {
  status: number;
  /** The response's grpc-encoding header. */
  encoding?: string;
  grpcStatus?: string;
  grpcMessage?: string;
  body: Buffer;
}

/** One call on `session`; resolves with the HTTP status, gRPC status (trailers or trailers-only) and body. */
function rawCall(session: http2.ClientHttp2Session, pathName: string, body: Buffer, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': pathName, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    const chunks: Buffer[] = [];
    const answer: RawAnswer = { status: 0, body: Buffer.alloc(0) };
    const read = (h: http2.IncomingHttpHeaders) => {
      if (h['grpc-status'] !== undefined) answer.grpcStatus = String(h['grpc-status']);
      if (h['grpc-message'] !== undefined) answer.grpcMessage = decodeURIComponent(String(h['grpc-message']));
    };
    req.on('response', (h) => {
      answer.status = Number(h[':status']);
      if (h['grpc-encoding'] !== undefined) answer.encoding = String(h['grpc-encoding']);
      read(h);
    });
    req.on('trailers', read);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ ...answer, body: Buffer.concat(chunks) }));
    req.on('error', reject);
    req.end(body);
  });
}

const simpleRequest = (rows = 1) => frame('inference.ModelInferRequest', {
  model_name: 'simple',
  inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [rows, 4] }, { name: 'INPUT1', datatype: 'FP32', shape: [rows, 4] }],
  raw_input_contents: [Buffer.alloc(rows * 16), Buffer.alloc(rows * 16)],
});

describe('native gRPC transport', () => {
  let t: TestServer;
  const counters = () => (t.server as unknown as { grpc: { native: { counters(): { connections: number; inflightBytes: number } } } }).grpc.native.counters();
  beforeAll(async () => {
    t = await startTestServer({ server: { maxBodyBytes: 64 << 10 } });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('answers many concurrent streams on one connection', async () => {
    const session = http2.connect(`http://${t.grpc}`);
    try {
      const answers = await Promise.all(Array.from({ length: 300 }, () => rawCall(session, INFER, simpleRequest())));
      expect(answers.every((a) => a.status === 200 && a.grpcStatus === '0' && a.body.length > 5)).toBe(true);
    } finally {
      session.close();
    }
  });

  it('answers an oversize message RESOURCE_EXHAUSTED before holding it, and a compressed one under identity INTERNAL', async () => {
    const session = http2.connect(`http://${t.grpc}`);
    try {
      const big = Buffer.alloc(5 + 100);
      big.writeUInt32BE((64 << 10) + 1, 1);
      const over = await rawCall(session, INFER, big);
      expect(over.grpcStatus).toBe(String(grpc.status.RESOURCE_EXHAUSTED));
      expect(over.grpcMessage).toBe(`Received message larger than max (${(64 << 10) + 1} vs. ${64 << 10})`);
      const compressed = Buffer.from([1, 0, 0, 0, 1, 0]);
      const identity = await rawCall(session, INFER, compressed);
      expect(identity.grpcStatus).toBe(String(grpc.status.INTERNAL));
      expect(identity.grpcMessage).toContain("a request message has the compressed flag set but the call's grpc-encoding is identity");
      const snappy = await rawCall(session, INFER, simpleRequest(), { 'grpc-encoding': 'snappy' });
      expect(snappy.grpcStatus).toBe(String(grpc.status.UNIMPLEMENTED));
      expect(snappy.grpcMessage).toBe("grpc-encoding 'snappy' is not supported by gebe serve; send messages with identity, deflate or gzip");
      expect((await rawCall(session, '/no.Such/Method', Buffer.alloc(5))).grpcStatus).toBe(String(grpc.status.UNIMPLEMENTED));
      const notGrpc = await rawCall(session, LIVE, Buffer.alloc(5), { 'content-type': 'text/plain' });
      expect(notGrpc.status).toBe(415);
    } finally {
      session.close();
    }
  });

  it('takes messages compressed with the call\'s grpc-encoding (gzip, deflate), as grpc clients send them', async () => {
    const compressedFrame = (message: Buffer, compress: (b: Buffer) => Buffer) => {
      const body = compress(message.subarray(5));
      const prefix = Buffer.alloc(5);
      prefix[0] = 1;
      prefix.writeUInt32BE(body.length, 1);
      return Buffer.concat([prefix, body]);
    };
    const session = http2.connect(`http://${t.grpc}`);
    try {
      const plain = await rawCall(session, INFER, simpleRequest(2));
      expect(plain.grpcStatus).toBe('0');
      for (const [encoding, compress] of [['gzip', zlib.gzipSync], ['deflate', zlib.deflateSync]] as const) {
        const answer = await rawCall(session, INFER, compressedFrame(simpleRequest(2), compress), { 'grpc-encoding': encoding });
        expect(answer.grpcStatus, encoding).toBe('0');
        expect(answer.body.equals(plain.body), encoding).toBe(true);
        // A message left uncompressed in such a call (flag 0) is taken as it is.
        expect((await rawCall(session, INFER, simpleRequest(), { 'grpc-encoding': encoding })).grpcStatus).toBe('0');
      }
      // A decompression bomb: 64 KB of gzip that inflates past the 64 KiB limit stops there.
      const bomb = await rawCall(session, INFER, compressedFrame(Buffer.concat([Buffer.alloc(5), Buffer.alloc(8 << 20)]), zlib.gzipSync), { 'grpc-encoding': 'gzip' });
      expect(bomb.grpcStatus).toBe(String(grpc.status.RESOURCE_EXHAUSTED));
      expect(bomb.grpcMessage).toBe(`Received message larger than max (more than ${64 << 10} bytes once decompressed, vs. ${64 << 10})`);
      const damaged = compressedFrame(simpleRequest(), zlib.gzipSync);
      damaged[damaged.length - 3] ^= 0xff;
      const corrupt = await rawCall(session, INFER, damaged, { 'grpc-encoding': 'gzip' });
      expect(corrupt.grpcStatus).toBe(String(grpc.status.INTERNAL));
      expect(corrupt.grpcMessage).toMatch(/^a request message could not be decompressed with gzip: /);
      expect(counters().inflightBytes).toBe(0);
    } finally {
      session.close();
    }
    // grpc-js with compression on: its requests are compressed, its streams too.
    for (const algorithm of [1, 2]) {
      const Ctor = grpc.makeGenericClientConstructor(serviceDefinition('inference.GRPCInferenceService', 'client'), 'GRPCInferenceService');
      const client = new Ctor(t.grpc, grpc.credentials.createInsecure(), { 'grpc.default_compression_algorithm': algorithm }) as GrpcClient;
      try {
        const inputs = [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4] }, { name: 'INPUT1', datatype: 'FP32', shape: [1, 4] }];
        const res = await call(client, 'ModelInfer', { model_name: 'simple', inputs, raw_input_contents: [Buffer.from(new Float32Array([1, 2, 3, 4]).buffer), Buffer.from(new Float32Array([1, 1, 1, 1]).buffer)] });
        // The test server's models echo their inputs.
        expect([...new Float32Array(new Uint8Array(res.raw_output_contents[0]).slice().buffer)]).toEqual([1, 2, 3, 4]);
        expect([...new Float32Array(new Uint8Array(res.raw_output_contents[1]).slice().buffer)]).toEqual([1, 1, 1, 1]);
        expect((await call(client, 'ServerLive', {})).live).toBe(true);
      } finally {
        client.close();
      }
    }
  });

  it('sends a response larger than the flow-control windows and its write budget (6 MB) intact', async () => {
    const big = await startTestServer({ server: { maxBodyBytes: 8 << 20 } });
    const Ctor = grpc.makeGenericClientConstructor(serviceDefinition('inference.GRPCInferenceService', 'client'), 'GRPCInferenceService');
    const client = new Ctor(big.grpc, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': -1 }) as GrpcClient;
    try {
      const values = Float32Array.from({ length: 1_500_000 }, (_, i) => i);
      const res = await call(client, 'ModelInfer', { model_name: 'id_fp32', inputs: [{ name: 'IN', datatype: 'FP32', shape: [values.length] }], raw_input_contents: [Buffer.from(values.buffer)] });
      expect(Buffer.from(res.raw_output_contents[0]).equals(Buffer.from(values.buffer))).toBe(true);
    } finally {
      client.close();
      await big.stop();
    }
  });

  it('percent-encodes grpc-message', async () => {
    const client = grpcClient(t.grpc);
    try {
      const err = await callError(client, 'ModelMetadata', { name: 'caf\u00e9 100%' });
      expect(err.code).toBe(grpc.status.NOT_FOUND);
      expect(err.details).toContain("'caf\u00e9 100%'");
    } finally {
      client.close();
    }
  });

  it('frees what a client that vanishes mid-message sent, and keeps serving', async () => {
    const session = http2.connect(`http://${t.grpc}`);
    await new Promise((resolve) => session.once('connect', resolve));
    for (let i = 0; i < 20; i++) {
      const req = session.request({ ':method': 'POST', ':path': INFER, 'content-type': 'application/grpc' });
      const partial = Buffer.alloc(5 + 4000);
      partial.writeUInt32BE(60000, 1);
      req.write(partial);
      req.on('error', () => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(counters().inflightBytes).toBeGreaterThan(0);
    session.destroy();
    for (let i = 0; i < 100 && (counters().inflightBytes > 0 || counters().connections > 0); i++) await new Promise((r) => setTimeout(r, 10));
    expect(counters().inflightBytes).toBe(0);
    const client = grpcClient(t.grpc);
    expect(await call(client, 'ServerLive', {})).toEqual({ live: true });
    client.close();
  });

  it('closes a connection that sends bad frames, and keeps serving others', async () => {
    const socket = net.connect(Number(t.grpc.split(':')[1]), '127.0.0.1');
    const closed = new Promise<Buffer>((resolve) => {
      const got: Buffer[] = [];
      socket.on('data', (d) => got.push(d));
      socket.on('close', () => resolve(Buffer.concat(got)));
      socket.on('error', () => undefined);
    });
    socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    // A DATA frame on stream 0 (a connection error), then garbage.
    socket.write(Buffer.from([0, 0, 4, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0xff, 0xff, 0xff]));
    const received = await closed;
    // The server's SETTINGS, then a GOAWAY (type 7) before it closed.
    expect(received.includes(Buffer.from([7, 0, 0, 0, 0, 0]))).toBe(true);
    const client = grpcClient(t.grpc);
    expect(await call(client, 'ServerLive', {})).toEqual({ live: true });
    client.close();
  });

  it('survives a flood of RST_STREAM', async () => {
    const session = http2.connect(`http://${t.grpc}`);
    session.on('error', () => undefined);
    await new Promise((resolve) => session.once('connect', resolve));
    for (let i = 0; i < 2000 && !session.destroyed && !session.closed; i++) {
      const req = session.request({ ':method': 'POST', ':path': INFER, 'content-type': 'application/grpc' });
      req.on('error', () => undefined);
      req.close(http2.constants.NGHTTP2_CANCEL);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    session.destroy();
    const client = grpcClient(t.grpc);
    expect(await call(client, 'ServerLive', {})).toEqual({ live: true });
    client.close();
  });

  it('serves h2load (one connection, 16 streams) when it is installed', async (ctx) => {
    try {
      execFileSync('h2load', ['--version'], { stdio: 'ignore' });
    } catch {
      ctx.skip();
    }
    const file = path.join(os.tmpdir(), `gebe-h2load-${process.pid}.grpc`);
    writeFileSync(file, simpleRequest());
    // Asynchronously: the calls are answered by JS on this thread.
    const { stdout: out } = await promisify(execFile)('h2load', ['-n', '400', '-c1', '-m16', '-d', file, '-H', 'content-type: application/grpc', '-H', 'te: trailers', `http://${t.grpc}${INFER}`], { encoding: 'utf8', timeout: 60_000 });
    expect(out).toMatch(/requests: 400 total, 400 started, 400 done, 400 succeeded/);
    expect(out).toMatch(/status codes: 400 2xx/);
  });
});

describe('native gRPC keepalive (gRPC core\'s rules, Triton\'s --grpc-keepalive-* flags)', () => {
  let t: TestServer;
  beforeAll(async () => {
    // Pings every 100 ms, also without calls; an unanswered one closes the connection after 1.5 s
    // (ample for a client on a loaded machine to answer).
    t = await startTestServer({ server: { grpcKeepalive: { ...DEFAULT_GRPC_KEEPALIVE, timeMs: 100, timeoutMs: 1500, permitWithoutCalls: true, maxPingsWithoutData: 0 } } });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('pings a connection and keeps it open while its client answers', async () => {
    const session = http2.connect(`http://${t.grpc}`);
    try {
      let pings = 0;
      // node:http2 answers each PING itself: the server goes on pinging and keeps the connection.
      await new Promise<void>((resolve) => session.on('ping', (payload: Buffer) => {
        expect(payload.toString()).toBe('gebekeep');
        if (++pings === 3) resolve();
      }));
      expect(session.closed || session.destroyed).toBe(false);
      expect((await rawCall(session, LIVE, frame('inference.ServerLiveRequest', {}))).grpcStatus).toBe('0');
    } finally {
      session.close();
    }
  });

  it('closes a connection whose client does not answer its ping', async () => {
    const socket = net.connect(Number(t.grpc.split(':')[1]), '127.0.0.1');
    const started = Date.now();
    const received = await new Promise<Buffer>((resolve) => {
      const got: Buffer[] = [];
      socket.on('data', (d) => got.push(d));
      socket.on('close', () => resolve(Buffer.concat(got)));
      socket.on('error', () => undefined);
      // The preface and an empty SETTINGS frame; nothing after, not even the PING's ACK.
      socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]));
    });
    // A PING frame (length 8, type 6, no flags, stream 0) with the server's payload, then the close.
    expect(received.includes(Buffer.concat([Buffer.from([0, 0, 8, 6, 0, 0, 0, 0, 0]), Buffer.from('gebekeep')]))).toBe(true);
    // Timers never fire early: the close came after the ping and its timeout.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  });
});

describe('native gRPC ping policy (defaults: no calls, at most one ping in two hours, two strikes)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.stop();
  });

  it('answers a client that pings too often with GOAWAY ENHANCE_YOUR_CALM "too_many_pings"', async () => {
    const session = http2.connect(`http://${t.grpc}`);
    session.on('error', () => undefined);
    const goaway = new Promise<[number, Buffer | undefined]>((resolve) => session.on('goaway', (code: number, _last: number, data?: Buffer) => resolve([code, data])));
    const closed = new Promise((resolve) => session.on('close', resolve));
    await new Promise((resolve) => session.once('connect', resolve));
    let acked = 0;
    // The first ping is allowed, the next two are strikes; the fourth is one strike too many.
    for (let i = 0; i < 4; i++) {
      const ok = await new Promise<boolean>((resolve) => session.ping((err) => resolve(!err)));
      if (ok) acked++;
    }
    const [code, data] = await goaway;
    expect(code).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    expect(data?.toString()).toBe('too_many_pings');
    expect(acked).toBeGreaterThanOrEqual(3);
    await closed;
    // Other clients are served as before.
    const client = grpcClient(t.grpc);
    expect(await call(client, 'ServerLive', {})).toEqual({ live: true });
    client.close();
  });

  it('lets a client ping while the server sends it data', async () => {
    const session = http2.connect(`http://${t.grpc}`);
    session.on('error', () => undefined);
    let goaway = false;
    session.on('goaway', () => (goaway = true));
    await new Promise((resolve) => session.once('connect', resolve));
    try {
      // Each answer's HEADERS and DATA frames clear the strikes, as in gRPC core.
      for (let i = 0; i < 6; i++) {
        await new Promise<void>((resolve, reject) => session.ping((err) => (err ? reject(err) : resolve())));
        expect((await rawCall(session, LIVE, frame('inference.ServerLiveRequest', {}))).grpcStatus).toBe('0');
      }
      expect(goaway).toBe(false);
    } finally {
      session.close();
    }
  });
});

/** A model whose only request waits in the queue (max_queue_delay 10 s for a batch of 16) and whose queue holds one. */
const QUEUE_CONFIG = `
name: "mnist_queue"
backend: "ge"
max_batch_size: 16
input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 10 ] } ]
dynamic_batching {
  preferred_batch_size: [ 16 ]
  max_queue_delay_microseconds: 10000000
  default_queue_policy { max_queue_size: 1 }
}
instance_group [ { count: 1 } ]
`;

describe('native gRPC cancellation', () => {
  let s: RealServer;
  let client: GrpcClient;
  beforeAll(async () => {
    s = await startRealServer(mnistRepository({ mnist_queue: { config: QUEUE_CONFIG, model: readFileSync(path.join(repoRoot, 'templates/mnist/1/model.onnx')) } }));
    client = grpcClient(s.grpc);
  });
  afterAll(async () => {
    client.close();
    await s.stop();
  });

  const request = { model_name: 'mnist_queue', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [Buffer.alloc(784 * 4)] };
  const canceled = async () => {
    const text = await (await fetch(s.metrics)).text();
    const line = text.split('\n').find((l) => l.startsWith('nv_inference_request_failure{') && l.includes('model="mnist_queue"') && l.includes('reason="CANCELED"'));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('answers DEADLINE_EXCEEDED at the deadline and takes the request out of the queue', async () => {
    for (let i = 0; i < 2; i++) {
      // The queue holds one request: the second would be refused if the first were still queued.
      const err = await new Promise<grpc.ServiceError>((resolve) => {
        client.ModelInfer!(request, { deadline: Date.now() + 300 }, (e: grpc.ServiceError) => resolve(e));
      });
      expect(err.code).toBe(grpc.status.DEADLINE_EXCEEDED);
      // The scheduler takes it out of the queue (and counts it) on its own thread.
      for (let k = 0; k < 100 && (await canceled()) < i + 1; k++) await new Promise((r) => setTimeout(r, 20));
      expect(await canceled()).toBe(i + 1);
    }
  });

  it('cancels the queued request of a client that resets its stream', async () => {
    const before = await canceled();
    const err = await new Promise<grpc.ServiceError>((resolve) => {
      const c = client.ModelInfer!(request, (e: grpc.ServiceError) => resolve(e));
      setTimeout(() => c.cancel(), 200);
    });
    expect(err.code).toBe(grpc.status.CANCELLED);
    for (let i = 0; i < 50 && (await canceled()) === before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await canceled()).toBe(before + 1);
    // The queue is free again: a new request is queued (not refused), then its deadline passes.
    const next = await new Promise<grpc.ServiceError>((resolve) => {
      client.ModelInfer!(request, { deadline: Date.now() + 200 }, (e: grpc.ServiceError) => resolve(e));
    });
    expect(next.code).toBe(grpc.status.DEADLINE_EXCEEDED);
  });
});

describe('infer responses compressed, as Triton\'s --grpc-infer-response-compression-level', () => {
  const unframe = (body: Buffer) => ({ compressed: body[0] === 1, message: body.subarray(5, 5 + body.readUInt32BE(1)) });
  const decode = (message: Buffer) => grpcRoot().lookupType('inference.ModelInferResponse').decode(message).toJSON();

  it('compresses in the algorithm the level picks among those the client accepts; others and other RPCs go uncompressed', async () => {
    const plainServer = await startTestServer();
    const servers = await Promise.all((['low', 'high'] as const).map((level) => startTestServer({ server: { grpcResponseCompression: level } })));
    const sessions = [plainServer, ...servers].map((s) => http2.connect(`http://${s.grpc}`));
    try {
      const [plain, low, high] = sessions as [http2.ClientHttp2Session, http2.ClientHttp2Session, http2.ClientHttp2Session];
      const reference = unframe((await rawCall(plain, INFER, simpleRequest(2), { 'grpc-accept-encoding': 'identity,deflate,gzip' })).body);
      expect(reference.compressed).toBe(false);
      const cases: Array<[http2.ClientHttp2Session, string | undefined, string | undefined, (b: Buffer) => Buffer]> = [
        [low, 'identity,deflate,gzip', 'gzip', zlib.gunzipSync],
        [high, 'identity,deflate,gzip', 'deflate', zlib.inflateSync],
        [high, 'identity,gzip', 'gzip', zlib.gunzipSync],
        [low, undefined, undefined, (b) => b],  // a client that says nothing takes nothing compressed
      ];
      for (const [session, accepts, encoding, inflate] of cases) {
        const answer = await rawCall(session, INFER, simpleRequest(2), accepts ? { 'grpc-accept-encoding': accepts } : {});
        expect(answer.grpcStatus).toBe('0');
        expect(answer.encoding, `${accepts}`).toBe(encoding);
        const { compressed, message } = unframe(answer.body);
        expect(compressed).toBe(encoding !== undefined);
        expect(decode(inflate(message))).toEqual(decode(reference.message));
      }
      // Not an inference response: as it is.
      const live = await rawCall(low, LIVE, frame('inference.ServerLiveRequest', {}), { 'grpc-accept-encoding': 'gzip' });
      expect([live.encoding, unframe(live.body).compressed]).toEqual([undefined, false]);
    } finally {
      for (const session of sessions) session.close();
      await Promise.all([plainServer, ...servers].map((s) => s.stop()));
    }
  });

  it('grpc-js reads the compressed answers, unary and streaming', async () => {
    const server = await startTestServer({ server: { grpcResponseCompression: 'medium' } });
    const client = grpcClient(server.grpc);
    try {
      const inputs = [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4] }, { name: 'INPUT1', datatype: 'FP32', shape: [1, 4] }];
      const request = { model_name: 'simple', inputs, raw_input_contents: [Buffer.from(new Float32Array([1, 2, 3, 4]).buffer), Buffer.from(new Float32Array([5, 6, 7, 8]).buffer)] };
      const res = await call(client, 'ModelInfer', request);
      expect([...new Float32Array(new Uint8Array(res.raw_output_contents[1]).slice().buffer)]).toEqual([5, 6, 7, 8]);
      const streamed = await streamInfer(client, [request, request]);
      expect(streamed).toHaveLength(2);
      expect([...new Float32Array(new Uint8Array(streamed[1].infer_response.raw_output_contents[0]).slice().buffer)]).toEqual([1, 2, 3, 4]);
    } finally {
      client.close();
      await server.stop();
    }
  });
});

