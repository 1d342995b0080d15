/**
 * Triton's OpenTelemetry trace mode on a real server (`--trace-config mode=opentelemetry`): traced
 * requests reach a real OTLP/HTTP receiver (a node:http server here, as an OpenTelemetry Collector
 * takes them) as Triton's spans: InferRequest, the model's span, compute, an ensemble's step under
 * the ensemble's span, with the front end's events, the resource attributes given, and a client's
 * W3C traceparent (HTTP header, gRPC metadata) continued, whatever the rate; a Python model's BLS
 * request made with trace=request.trace() under the Python model's span; a receiver that is down
 * costs spans, never a request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { postJson } from '../helpers/http-client.js';
import { silentLogger, type Logger } from '../../../../src/core/server/logger.js';
import { DEFAULT_OTEL_OPTIONS } from '../../../../src/core/server/otel-exporter.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { mnistRepository, perRequestModelPy, startRealServer, writeMnistPipeline, writeModel, type RealServer } from './helpers.js';

interface Span {
  traceId: string; spanId: string; parentSpanId: string; name: string; kind: number;
  startTimeUnixNano: string; endTimeUnixNano: string;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string } }>;
  events: Array<{ name: string; timeUnixNano: string }>;
}
interface Export { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue: string } }> }; scopeSpans: Array<{ scope: { name: string }; spans: Span[] }> }> }

/** An OTLP/HTTP receiver: keeps every export it is sent. */
async function receiver(): Promise<{ url: string; exports: Export[]; spans(): Span[]; close(): Promise<void> }> {
  const exports: Export[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      expect(req.url).toBe('/v1/traces');
      expect(req.headers['content-type']).toBe('application/json');
      exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Export);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    exports,
    spans: () => exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c12666c';
const CLIENT_SPAN = 'b7ad6b7169242424';
const TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
const image = (name = 'image') => ({ name, datatype: 'FP32', shape: [1, 1, 28, 28], data: new Array(784).fill(0.25) });

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** The spans of one trace, by name, and the names of each span's children. */
function tree(spans: Span[]): Record<string, string[]> {
  const names = new Map(spans.map((s) => [s.spanId, s.name]));
  const out: Record<string, string[]> = {};
  for (const s of spans) {
    const parent = names.get(s.parentSpanId);
    if (parent) (out[parent] ??= []).push(s.name);
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}

describe('OpenTelemetry trace mode', () => {
  let otel: Awaited<ReturnType<typeof receiver>>;
  let server: RealServer;
  let client: GrpcClient;
  beforeAll(async () => {
    otel = await receiver();
    const repo = mnistRepository();
    writeMnistPipeline(repo);
    server = await startRealServer(repo, 'none', [], undefined, {
      trace: {
        mode: 'opentelemetry', file: '', setting: { timestamps: true, rate: 1, count: -1, logFrequency: 0 },
        otel: { ...DEFAULT_OTEL_OPTIONS, url: `http://${otel.url}`, resource: { 'service.name': 'gebe-e2e', 'test.key': 'test.value' }, scheduleDelayMs: 50 },
      },
    });
    client = grpcClient(server.grpc);
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
    await otel?.close();
  });

  it('sends a traced request as Triton\'s three spans, with the resource attributes given', async () => {
    expect((await postJson(`${server.http}/v2/models/mnist/infer`, { id: 'otel-1', inputs: [image()] })).status).toBe(200);
    await until(() => otel.spans().length >= 3, 'three spans');
    const spans = otel.spans();
    expect(spans.map((s) => s.name).sort()).toEqual(['InferRequest', 'compute', 'mnist']);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(spans[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
    for (const s of spans) expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(tree(spans)).toEqual({ InferRequest: ['mnist'], mnist: ['compute'] });
    const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
    expect(byName.InferRequest!.parentSpanId).toBe('');
    // Triton's root events (its L0_trace test's list).
    expect(byName.InferRequest!.events.map((e) => e.name)).toEqual(['HTTP_RECV_START', 'HTTP_RECV_END', 'INFER_RESPONSE_COMPLETE', 'HTTP_SEND_START', 'HTTP_SEND_END']);
    expect(byName.mnist!.events.map((e) => e.name)).toEqual(['REQUEST_START', 'QUEUE_START', 'REQUEST_END']);
    expect(byName.compute!.events.map((e) => e.name)).toEqual(['COMPUTE_START', 'COMPUTE_INPUT_END', 'COMPUTE_OUTPUT_START', 'COMPUTE_END']);
    // Triton's attributes, on the model span; every span of kind SERVER, as Triton's.
    expect(byName.mnist!.attributes.map((a) => a.key)).toEqual(['triton.model_name', 'triton.model_version', 'triton.trace_id', 'triton.trace_parent_id', 'triton.request_id']);
    expect(byName.mnist!.attributes).toContainEqual({ key: 'triton.model_name', value: { stringValue: 'mnist' } });
    expect(byName.mnist!.attributes).toContainEqual({ key: 'triton.model_version', value: { intValue: '1' } });
    expect(byName.mnist!.attributes).toContainEqual({ key: 'triton.request_id', value: { stringValue: 'otel-1' } });
    expect(spans.map((s) => s.kind)).toEqual([2, 2, 2]);
    // Each span lies within its parent, on the wall clock.
    const t = (s: Span, k: 'startTimeUnixNano' | 'endTimeUnixNano') => BigInt(s[k]);
    expect(t(byName.InferRequest!, 'startTimeUnixNano') <= t(byName.mnist!, 'startTimeUnixNano')).toBe(true);
    expect(t(byName.mnist!, 'endTimeUnixNano') <= t(byName.InferRequest!, 'endTimeUnixNano')).toBe(true);
    expect(t(byName.compute!, 'startTimeUnixNano') >= t(byName.mnist!, 'startTimeUnixNano')).toBe(true);
    const now = BigInt(Date.now()) * 1_000_000n;
    expect(now - t(byName.InferRequest!, 'startTimeUnixNano') < 60_000_000_000n).toBe(true);
    const resource = otel.exports[0]!.resourceSpans[0]!.resource.attributes;
    expect(resource).toContainEqual({ key: 'service.name', value: { stringValue: 'gebe-e2e' } });
    expect(resource).toContainEqual({ key: 'test.key', value: { stringValue: 'test.value' } });
  });

  it('puts an ensemble\'s step under the ensemble\'s span, in one trace', async () => {
    otel.exports.length = 0;
    expect((await postJson(`${server.http}/v2/models/pipeline/infer`, { id: 'otel-ens', inputs: [image('IMAGE')] })).status).toBe(200);
    await until(() => otel.spans().length >= 4, 'four spans');
    const spans = otel.spans();
    expect(spans).toHaveLength(4);
    // The step's request carries the ensemble request's id (its trace names it too).
    for (const name of ['pipeline', 'mnist']) {
      expect(spans.find((s) => s.name === name)!.attributes).toContainEqual({ key: 'triton.request_id', value: { stringValue: 'otel-ens' } });
    }
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(tree(spans)).toEqual({ InferRequest: ['pipeline'], pipeline: ['mnist'], mnist: ['compute'] });
  });

  it('continues a client\'s trace from its traceparent, over HTTP and gRPC, whatever the rate', async () => {
    const url = `${server.http}/v2/trace/setting`;
    expect((await postJson(url, { trace_rate: '0' })).status).toBe(200);
    try {
      otel.exports.length = 0;
      // Rate 0: a request without context is not traced.
      expect((await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [image()] })).status).toBe(200);
      const res = await fetch(`${server.http}/v2/models/mnist/infer`, { method: 'POST', headers: { 'content-type': 'application/json', traceparent: TRACEPARENT }, body: JSON.stringify({ inputs: [image()] }) });
      expect(res.status).toBe(200);
      const metadata = new grpc.Metadata();
      metadata.set('traceparent', TRACEPARENT.replace(CLIENT_SPAN, 'c7ad6b7169242424'));
      await new Promise<void>((resolve, reject) => client.ModelInfer!({ model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [Buffer.alloc(3136)] },
        metadata, (err: Error | null) => (err ? reject(err) : resolve())));
      // An ensemble (run by JS) continues it too; a malformed traceparent is ignored.
      expect((await fetch(`${server.http}/v2/models/pipeline/infer`, { method: 'POST', headers: { traceparent: TRACEPARENT.replace(CLIENT_SPAN, 'd7ad6b7169242424') }, body: JSON.stringify({ inputs: [image('IMAGE')] }) })).status).toBe(200);
      expect((await fetch(`${server.http}/v2/models/mnist/infer`, { method: 'POST', headers: { traceparent: '00-xyz-1-01' }, body: JSON.stringify({ inputs: [image()] }) })).status).toBe(200);
      await until(() => otel.spans().filter((s) => s.name === 'InferRequest').length >= 3, 'three traces');
      await new Promise((r) => setTimeout(r, 200));
      const roots = otel.spans().filter((s) => s.name === 'InferRequest');
      expect(roots.map((r) => [r.traceId, r.parentSpanId]).sort()).toEqual([
        [CLIENT_TRACE, CLIENT_SPAN], [CLIENT_TRACE, 'c7ad6b7169242424'], [CLIENT_TRACE, 'd7ad6b7169242424'],
      ]);
      const grpcRoot = roots.find((r) => r.parentSpanId === 'c7ad6b7169242424')!;
      expect(grpcRoot.events.map((e) => e.name)).toEqual(['GRPC_WAITREAD_START', 'GRPC_WAITREAD_END', 'INFER_RESPONSE_COMPLETE', 'GRPC_SEND_START', 'GRPC_SEND_END']);
      expect(otel.spans().every((s) => s.traceId === CLIENT_TRACE)).toBe(true);
      expect(otel.spans()).toHaveLength(3 + 3 + 4);
    } finally {
      expect((await postJson(url, { trace_rate: '1' })).status).toBe(200);
    }
    // The setting answers the server's mode; another is refused.
    expect((await postJson(url, {})).body.trace_mode).toBe('opentelemetry');
    expect((await postJson(url, { trace_mode: 'triton' })).status).toBe(400);
  });
});

describe('OpenTelemetry trace mode with the receiver down', () => {
  it('serves every request and says once that it cannot export', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (msg: string, fields?: object) => warnings.push(`${msg} ${JSON.stringify(fields)}`) };
    const server = await startRealServer(mnistRepository(), 'none', [], log, {
      trace: { mode: 'opentelemetry', file: '', setting: { timestamps: true, rate: 1, count: -1, logFrequency: 0 }, otel: { ...DEFAULT_OTEL_OPTIONS, url: 'http://127.0.0.1:1/v1/traces', scheduleDelayMs: 20 } },
    });
    try {
      for (let i = 0; i < 5; i++) {
        expect((await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [image()] })).status).toBe(200);
        await new Promise((r) => setTimeout(r, 60));
      }
      await until(() => warnings.some((w) => w.startsWith('cannot export traces')), 'the export warning');
    } finally {
      await server.stop();
    }
    expect(warnings.filter((w) => w.startsWith('cannot export traces'))).toHaveLength(1);
  });
});

describe('OpenTelemetry trace mode with a receiver that never answers', () => {
  it('holds at most the queue\'s spans, says it drops the rest, and stops without waiting for it', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const hung = http.createServer(() => undefined);  // reads requests, never answers
    hung.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (msg: string) => warnings.push(msg) };
    const server = await startRealServer(mnistRepository(), 'none', [], log, {
      trace: {
        mode: 'opentelemetry', file: '', setting: { timestamps: true, rate: 1, count: -1, logFrequency: 0 },
        otel: { ...DEFAULT_OTEL_OPTIONS, url: `http://127.0.0.1:${(hung.address() as AddressInfo).port}/v1/traces`, maxQueueSize: 12, maxExportBatchSize: 6, scheduleDelayMs: 20, exportTimeoutMs: 500 },
      },
    });
    try {
      for (let i = 0; i < 20; i++) expect((await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [image()] })).status).toBe(200);
      await until(() => warnings.some((w) => w.startsWith('trace spans dropped')), 'the drop warning');
    } finally {
      const started = Date.now();
      await server.stop();
      expect(Date.now() - started).toBeLessThan(5000);
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => hung.close(resolve));
    }
  });
});

const python = pythonForTests();

describe.skipIf(!python.available)('OpenTelemetry trace mode with a BLS model', () => {
  it('traces a BLS request made with trace=request.trace() under the Python model\'s span, and hands model.py its span\'s context', async () => {
    const otel = await receiver();
    const repo = mnistRepository();
    writeModel(repo, 'bls', [
      'backend: "python"', 'max_batch_size: 0',
      'input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, 1, 28, 28 ] } ]',
      'output [ { name: "logits" data_type: TYPE_FP32 dims: [ 1, 10 ] }, { name: "context" data_type: TYPE_STRING dims: [ 1 ] } ]',
    ], perRequestModelPy([
      'image = pb_utils.get_input_tensor_by_name(r, "image")',
      'ask = lambda **kw: pb_utils.InferenceRequest(model_name="mnist", requested_output_names=["logits"], inputs=[pb_utils.Tensor("image", image.as_numpy())], **kw).exec()',
      'ask()  # not the request\'s child: no trace given',
      'ask(trace=pb_utils.InferenceTrace(987654))  # a trace the model does not hold: not a child either',
      'answer = ask(trace=r.trace())',
      'context = np.array([r.trace().get_context().encode()], dtype=object)',
      'out.append(pb_utils.InferenceResponse([pb_utils.get_output_tensor_by_name(answer, "logits"), pb_utils.Tensor("context", context)]))',
    ]));
    const server = await startRealServer(repo, 'none', [], undefined, {
      trace: { mode: 'opentelemetry', file: '', setting: { timestamps: true, rate: 1, count: -1, logFrequency: 0 }, otel: { ...DEFAULT_OTEL_OPTIONS, url: `http://${otel.url}`, scheduleDelayMs: 50 } },
    });
    try {
      const res = await postJson(`${server.http}/v2/models/bls/infer`, { inputs: [image()] });
      expect(res.status).toBe(200);
      const context = (res.body as { outputs: Array<{ name: string; data: string[] }> }).outputs.find((o) => o.name === 'context')!.data[0]!;
      await until(() => otel.spans().length >= 10, 'ten spans');
      await new Promise((r) => setTimeout(r, 300));
      const spans = otel.spans();
      // The BLS request given the request's trace is the Python model's child; the others are
      // sampled on their own (rate 1), each a trace of its own, as any request to mnist.
      const blsTrace = spans.find((s) => s.name === 'bls')!.traceId;
      expect(tree(spans.filter((s) => s.traceId === blsTrace))).toEqual({ InferRequest: ['bls'], bls: ['mnist'], mnist: ['compute'] });
      // Triton's trace context: the traceparent of the Python model's own span, as it ran.
      expect(JSON.parse(context)).toEqual({ traceparent: `00-${blsTrace}-${spans.find((s) => s.name === 'bls')!.spanId}-01` });
      const others = spans.filter((s) => s.traceId !== blsTrace);
      expect(new Set(others.map((s) => s.traceId)).size).toBe(2);
      expect(others.map((s) => s.name).sort()).toEqual(['InferRequest', 'InferRequest', 'compute', 'compute', 'mnist', 'mnist']);
      expect(spans).toHaveLength(10);
    } finally {
      await server.stop();
      await otel.close();
    }
  });
});
