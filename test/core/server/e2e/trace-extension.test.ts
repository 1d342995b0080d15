/**
 * Triton's trace extension on a real server: requests the native HTTP and gRPC routes answer are
 * sampled and written to the trace file with Triton's timestamps, in order; GET/POST
 * /v2[/models/{m}]/trace/setting and gRPC TraceSetting read and change the global setting and a
 * model's own (null clears a model's value); bad settings are refused whole, in one wording for
 * both protocols; log_frequency splits the output into numbered files.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { binaryBody, getJson, postBinary, postJson } from '../helpers/http-client.js';
import { mnistRepository, startRealServer, writeMnistPipeline, type RealServer } from './helpers.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-trace-'));
const file = path.join(dir, 'trace.json');
let server: RealServer;
let grpc: GrpcClient;


beforeAll(async () => {
  const repo = mnistRepository();
  writeMnistPipeline(repo);
  server = await startRealServer(repo, 'none', [], undefined, {
    trace: { file, setting: { timestamps: true, rate: 1, count: -1, logFrequency: 0 } },
  });
  grpc = grpcClient(server.grpc);
});
afterAll(async () => {
  grpc?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const image = { name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] };
const pixelValues = new Float32Array(784).map((_, i) => (i % 7) / 8);
const pixels = new Uint8Array(pixelValues.buffer);
const inferJson = () => postJson(`${server.http}/v2/models/mnist/infer`, { id: 'json-1', inputs: [{ ...image, data: new Array(784).fill(0) }] });
function inferBinary() {
  const { body, headerLength } = binaryBody({ inputs: [{ ...image, parameters: { binary_data_size: pixels.byteLength } }] }, [{ ...image, bytes: pixels }]);
  return postBinary(`${server.http}/v2/models/mnist/infer`, body, headerLength);
}
const inferGrpc = () => call(grpc, 'ModelInfer', { model_name: 'mnist', id: 'grpc-1', inputs: [image], raw_input_contents: [Buffer.from(pixels)] });
const setting = (url: string, body?: object) => (body ? postJson(url, body) : getJson(url));
const GLOBAL = () => `${server.http}/v2/trace/setting`;
const MNIST = () => `${server.http}/v2/models/mnist/trace/setting`;

type TensorEntry = { name: string; data: string; shape: string; dtype: string };
type Entry = { id: number; model_name?: string; model_version?: number; request_id?: string; parent_id?: number; timestamps?: Array<{ name: string; ns: number }>; activity?: string; tensor?: TensorEntry };
type Trace = { model?: string; version?: number; requestId?: string; parent?: number; names: string[]; ns: number[]; tensors: Array<TensorEntry & { activity: string }> };
/** The timestamp names of each trace in a complete trace file, by id. */
function traces(entries: Entry[]): Map<number, Trace> {
  const out = new Map<number, Trace>();
  for (const e of entries) {
    const t = out.get(e.id) ?? { names: [], ns: [], tensors: [] };
    if (e.activity && e.tensor) t.tensors.push({ activity: e.activity, ...e.tensor });
    if (e.model_name !== undefined) [t.model, t.version, t.requestId, t.parent] = [e.model_name, e.model_version, e.request_id, e.parent_id];
    for (const s of e.timestamps ?? []) {
      t.names.push(s.name);
      t.ns.push(s.ns);
    }
    out.set(e.id, t);
  }
  return out;
}

const HTTP_STAMPS = ['HTTP_RECV_START', 'HTTP_RECV_END', 'REQUEST_START', 'QUEUE_START', 'COMPUTE_START', 'COMPUTE_INPUT_END',
  'COMPUTE_OUTPUT_START', 'COMPUTE_END', 'REQUEST_END', 'INFER_RESPONSE_COMPLETE', 'HTTP_SEND_START', 'HTTP_SEND_END'];
const GRPC_STAMPS = HTTP_STAMPS.map((n) => n.replace('HTTP_RECV', 'GRPC_WAITREAD').replace('HTTP_SEND', 'GRPC_SEND'));

/** The logits of the request traced at level TENSORS. */
let tensorsAnswer: number[] = [];

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 60 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
}

describe('the trace extension', () => {
  it('answers the settings in Triton\'s names and lists "trace" among the extensions', async () => {
    expect(await setting(GLOBAL())).toEqual({
      status: 200,
      body: { trace_file: file, trace_level: ['TIMESTAMPS'], trace_rate: '1', trace_count: '-1', log_frequency: '0', trace_mode: 'triton' },
    });
    expect((await getJson(`${server.http}/v2`)).body.extensions).toContain('trace');
    const viaGrpc = await call(grpc, 'TraceSetting', { model_name: 'mnist' });
    expect(viaGrpc.settings.trace_level).toEqual({ value: ['TIMESTAMPS'] });
    expect(viaGrpc.settings.trace_rate).toEqual({ value: ['1'] });
  });

  it('traces natively answered HTTP (JSON and binary) and gRPC requests with Triton\'s timestamps, in order, and one JS hands on', async () => {
    expect((await inferJson()).status).toBe(200);
    expect((await inferBinary()).status).toBe(200);
    await inferGrpc();
    // A gzip body is the JS path's to read: mnist's request reaches the executor from JS.
    const gzipped = gzipSync(JSON.stringify({ id: 'gzip-1', inputs: [{ ...image, data: new Array(784).fill(0) }] }));
    const res = await fetch(`${server.http}/v2/models/mnist/infer`, { method: 'POST', headers: { 'Content-Encoding': 'gzip' }, body: gzipped });
    expect(res.status).toBe(200);
    // Nothing more is traced from here on: the file holds these four once the server stops.
    expect((await setting(GLOBAL(), { trace_level: ['OFF'] })).body.trace_level).toEqual(['OFF']);
    await inferJson();
  });

  it('gives a model its own setting over the global one, and null clears its values', async () => {
    const own = await setting(MNIST(), { trace_rate: '2', trace_count: '3' });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ trace_level: ['OFF'], trace_rate: '2', trace_count: '3' });
    expect((await setting(GLOBAL())).body).toMatchObject({ trace_rate: '1', trace_count: '-1' });

    // On for mnist alone: every second request, three in all, whichever protocol.
    expect((await setting(MNIST(), { trace_level: 'TIMESTAMPS' })).body.trace_level).toEqual(['TIMESTAMPS']);
    for (let i = 0; i < 4; i++) await inferBinary();
    for (let i = 0; i < 4; i++) await inferGrpc();
    expect((await setting(MNIST())).body.trace_count).toBe('0');

    const cleared = await setting(MNIST(), { trace_rate: null, trace_count: null, trace_level: null });
    expect(cleared.body).toMatchObject({ trace_level: ['OFF'], trace_rate: '1', trace_count: '-1' });
    // gRPC clears with an empty value list.
    await call(grpc, 'TraceSetting', { model_name: 'mnist', settings: { trace_rate: { value: ['5'] } } });
    const viaGrpc = await call(grpc, 'TraceSetting', { model_name: 'mnist', settings: { trace_rate: { value: [] } } });
    expect(viaGrpc.settings.trace_rate).toEqual({ value: ['1'] });
  });

  it('refuses bad settings whole, in one wording over HTTP and gRPC', async () => {
    const refusals: Array<[object, string]> = [
      [{ trace_rate: '0' }, "trace setting 'trace_rate' \"0\" must be a whole number from 1 to 4294967295"],
      [{ trace_count: 'many' }, "trace setting 'trace_count' \"many\" must be a whole number from -1 to 9007199254740991"],
      [{ trace_rate: '1e3' }, "trace setting 'trace_rate' \"1e3\" must be a whole number from 1 to 4294967295"],
      [{ trace_level: ['VERBOSE'] }, "trace setting 'trace_level' [\"VERBOSE\"]: the levels are OFF, TIMESTAMPS and TENSORS"],
      [{ trace_file: '/etc/passwd' }, 'trace file location can not be updated through network protocol; start gebe serve with --trace-config triton,file=<path>'],
      [{ trace_mode: 'opentelemetry' }, "trace setting 'trace_mode' \"opentelemetry\": the server traces in mode 'triton', fixed at start (--trace-config mode=triton|opentelemetry)"],
      [{ trace_sampling: '1' }, "unknown trace setting 'trace_sampling'; the settings are trace_file, trace_level, trace_rate, trace_count, log_frequency, trace_mode"],
      [{ trace_rate: '7', trace_count: null }, "the global trace setting 'trace_count' cannot be cleared; give it a value"],
    ];
    for (const [body, message] of refusals) {
      expect(await setting(GLOBAL(), body)).toEqual({ status: 400, body: { error: message } });
      const settings = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, { value: v === null ? [] : Array.isArray(v) ? v : [v] }]));
      const err = await callError(grpc, 'TraceSetting', { settings });
      expect([err.code, err.details]).toEqual([3, message]);
    }
    // Refused whole: the rate sent beside a refused value did not change.
    expect((await setting(GLOBAL())).body.trace_rate).toBe('1');
    expect((await setting(MNIST(), { log_frequency: '5' })).body.error).toMatch(/^log_frequency is the server's/);
    expect((await setting(`${server.http}/v2/models/nope/trace/setting`)).status).toBe(404);
  });

  it('traces a model JS runs (an ensemble) from request start to end, and its steps as its children', async () => {
    await setting(`${server.http}/v2/models/pipeline/trace/setting`, { trace_level: ['TIMESTAMPS'], trace_rate: '1', trace_count: '2' });
    const body = { id: 'ens-http', inputs: [{ name: 'IMAGE', datatype: 'FP32', shape: [1, 1, 28, 28], data: new Array(784).fill(0) }] };
    expect((await postJson(`${server.http}/v2/models/pipeline/infer`, body)).status).toBe(200);
    await call(grpc, 'ModelInfer', { model_name: 'pipeline', id: 'ens-grpc', inputs: [{ name: 'IMAGE', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [Buffer.from(pixels)] });
    expect((await postJson(`${server.http}/v2/models/pipeline/infer`, body)).status).toBe(200);
    expect((await setting(`${server.http}/v2/models/pipeline/trace/setting`)).body.trace_count).toBe('0');
  });

  it('traces the tensors at level TENSORS: the inputs as queued, the outputs as the model gave them', async () => {
    expect((await setting(MNIST(), { trace_level: ['TENSORS'], trace_rate: '1', trace_count: '1' })).body.trace_level).toEqual(['TENSORS']);
    const answer = await inferBinary();
    tensorsAnswer = (answer.json as { outputs: Array<{ data: number[] }> }).outputs[0]!.data;
    await setting(MNIST(), { trace_level: null, trace_rate: null, trace_count: null });
  });

  it('writes a numbered file every log_frequency traces', async () => {
    await setting(GLOBAL(), { trace_level: ['TIMESTAMPS'], log_frequency: '2' });
    for (let i = 0; i < 5; i++) await inferBinary();
    // A file is complete once its closing bracket is written.
    await until(() => existsSync(`${file}.1`) && readFileSync(`${file}.1`, 'utf8').endsWith(']\n'));
    const first = traces(JSON.parse(readFileSync(`${file}.0`, 'utf8')));
    const second = traces(JSON.parse(readFileSync(`${file}.1`, 'utf8')));
    expect([first.size, second.size]).toEqual([2, 2]);
    await setting(GLOBAL(), { trace_level: ['OFF'] });
  });

  it('completes the files when the server stops', async () => {
    await server.stop();
    server = undefined as unknown as RealServer;
    // The fifth trace of the numbered run: its file is completed at the stop.
    expect(traces(JSON.parse(readFileSync(`${file}.2`, 'utf8'))).size).toBe(1);
    const all = traces(JSON.parse(readFileSync(file, 'utf8')));
    const list = [...all.values()];
    // Four from the global setting (JSON, binary, gRPC, gzip), three from mnist's own (rate 2, count 3),
    // two of the ensemble (count 2: HTTP, then gRPC) and their mnist steps' (traced as their children
    // though mnist's setting was off).
    // One more at level TENSORS: its tensors and no timestamps.
    const withTensors = list.findIndex((t) => t.tensors.length > 0);
    const tensors = list.splice(withTensors, 1)[0]!;
    expect([tensors.model, tensors.names]).toEqual(['mnist', []]);
    expect(tensors.tensors.map((t) => [t.activity, t.name, t.shape, t.dtype])).toEqual([
      ['TENSOR_QUEUE_INPUT', 'image', '1,1,28,28', 'FP32'], ['TENSOR_BACKEND_OUTPUT', 'logits', '1,10', 'FP32'],
    ]);
    expect(tensors.tensors[0]!.data.split(',').map(Number)).toEqual(Array.from(pixelValues));
    expect(tensors.tensors[1]!.data.split(',').map(Number)).toEqual(tensorsAnswer);
    expect(list.length).toBe(11);
    for (const t of list) expect(t.ns).toEqual([...t.ns].sort((a, b) => a - b));
    expect(list.slice(0, 7).map((t) => `${t.model} ${t.version}`)).toEqual(new Array(7).fill('mnist 1'));
    expect(list.slice(0, 2).map((t) => t.names)).toEqual([HTTP_STAMPS, HTTP_STAMPS]);
    expect(list[2]!.names).toEqual(GRPC_STAMPS);
    // The request JS handed to the executor: received and sent natively, answered through JS.
    expect(list[3]!.names).toEqual(HTTP_STAMPS);
    // Triton's request_id: the id each request came with (the binary one had none), from the
    // native HTTP and gRPC routes and from JS alike.
    expect(list.slice(0, 4).map((t) => t.requestId)).toEqual(['json-1', undefined, 'grpc-1', 'gzip-1']);
    expect(list.slice(4, 7).map((t) => t.names[0])).toEqual(['HTTP_RECV_START', 'HTTP_RECV_START', 'GRPC_WAITREAD_START']);
    const ids = [...all.keys()];
    const ensembles = list.flatMap((t, i) => (t.model === 'pipeline' ? [i] : []));
    // JS answered them: the native front end timed the receive and, handed the trace with the answer, the send.
    expect(ensembles.map((i) => list[i]!.names)).toEqual([
      ['HTTP_RECV_START', 'HTTP_RECV_END', 'REQUEST_START', 'REQUEST_END', 'INFER_RESPONSE_COMPLETE', 'HTTP_SEND_START', 'HTTP_SEND_END'],
      ['GRPC_WAITREAD_START', 'GRPC_WAITREAD_END', 'REQUEST_START', 'REQUEST_END', 'INFER_RESPONSE_COMPLETE', 'GRPC_SEND_START', 'GRPC_SEND_END'],
    ]);
    expect(ensembles.map((i) => list[i]!.requestId)).toEqual(['ens-http', 'ens-grpc']);
    for (const e of ensembles) {
      const step = list.find((t) => t.parent === ids[e])!;
      expect(step.model).toBe('mnist');
      expect(step.requestId).toBe(list[e]!.requestId);
      expect(step.names).toEqual(['REQUEST_START', 'QUEUE_START', 'COMPUTE_START', 'COMPUTE_INPUT_END', 'COMPUTE_OUTPUT_START', 'COMPUTE_END', 'REQUEST_END', 'INFER_RESPONSE_COMPLETE']);
      // The step runs inside the ensemble's request.
      expect(step.ns[0]).toBeGreaterThanOrEqual(list[e]!.ns[2]!);
      expect(step.ns.at(-1)).toBeLessThanOrEqual(list[e]!.ns[3]!);
    }
  });
});
