/**
 * The native infer route (native/src/http/fast_infer.cc), driven through its test-only addon
 * handle (native/test/bindings, in the test build of the addon): for the requests it takes (binary and JSON tensors), its answer must be byte for byte the
 * JS codec's answer to the same request (node:http front end, run on the same loaded model);
 * everything it cannot decode as the JS codec does, or that Normalize refuses, must be declined
 * (null), so the JS handler answers it.
 */
import '../../helpers/test-addon.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutorModel, loadModel } from '../../../src/core/executor/index.js';
import { loadNativeAddon } from '../../../src/core/executor/native.js';
import { DiskModelSource } from '../../../src/core/server/disk-source.js';
import { silentLogger } from '../../../src/core/server/logger.js';
import { ModelManager } from '../../../src/core/server/model-manager.js';
import { publishReadyModels, type PublishTarget } from '../../../src/core/server/http/publish-models.js';
import { GebeServer } from '../../../src/core/server/server.js';
import { parseModelConfig } from '../../../src/core/config/index.js';
import { mnistRepository, repoRoot } from './e2e/helpers.js';
import { CLASSES_MODELS } from './helpers/identity-models.js';

function parseConfig(dir: string) {
  const file = path.join(dir, 'config.pbtxt');
  return parseModelConfig(readFileSync(file, 'utf8'), file).config;
}

interface NativeAnswer {
  status: number;
  headers: string;
  body: Buffer;
}
interface FastInferHandle extends PublishTarget {
  handle(method: string, url: string, headers: Array<[string, string]>, body: Uint8Array, misalign?: number): Promise<NativeAnswer> | null;
  takeFailures(): Array<{ model: string; version: string; reason: string; count: number }>;
}
const { FastInfer } = loadNativeAddon().httpTest as { FastInfer: new () => FastInferHandle };

/** A second MNIST model whose queue holds one request, and whose requests may set their own queue timeout. */
const QUEUE_CONFIG = `
name: "mnist_queue"
backend: "ge"
max_batch_size: 16
input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 10 ] } ]
dynamic_batching {
  preferred_batch_size: [ 16 ]
  max_queue_delay_microseconds: 10000000
  default_queue_policy { max_queue_size: 1 allow_timeout_override: true }
}
instance_group [ { count: 1 } ]
`;

let manager: ModelManager;
let server: GebeServer;
let http: string;
let fast: FastInferHandle;
let repo: string;

beforeAll(async () => {
  const onnx = readFileSync(path.join(repoRoot, 'templates/mnist/1/model.onnx'));
  repo = mnistRepository({ mnist_queue: { config: QUEUE_CONFIG, model: onnx }, ...CLASSES_MODELS });
  manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
  await manager.start();
  // node:http: every request there is answered by the JS codec, the reference here.
  server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 8 << 20, httpFrontend: 'node' }, silentLogger);
  http = `http://127.0.0.1:${(await server.listen()).http}`;
  fast = new FastInfer();
  // As the servers publish: every READY native model, with the labels of its outputs.
  publishReadyModels(manager, fast);
});
afterAll(async () => {
  await server?.stop(5000);
});

/** MNIST-like pixels for `rows` images (deterministic, every value different). */
function pixels(rows: number): Uint8Array {
  return new Uint8Array(Float32Array.from({ length: rows * 784 }, (_, i) => ((i * 37) % 256) / 255).buffer);
}

/** A binary-extension body: the JSON header text as given, then the tensor bytes. */
function body(header: unknown, ...tensors: Uint8Array[]): { bytes: Buffer; headerLength: number } {
  const json = Buffer.from(typeof header === 'string' ? header : JSON.stringify(header));
  return { bytes: Buffer.concat([json, ...tensors]), headerLength: json.byteLength };
}

const image = (rows: number, extra: Record<string, unknown> = {}) => ({ name: 'image', datatype: 'FP32', shape: [rows, 1, 28, 28], parameters: { binary_data_size: rows * 784 * 4 }, ...extra });
const logitsBinary = [{ name: 'logits', parameters: { binary_data: true } }];

async function viaJs(url: string, b: { bytes: Buffer; headerLength: number }): Promise<NativeAnswer & { contentType: string | null; headerLength: string | null }> {
  const res = await fetch(`${http}${url}`, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(b.headerLength) }, body: b.bytes });
  return {
    status: res.status,
    headers: '',
    body: Buffer.from(await res.arrayBuffer()),
    contentType: res.headers.get('content-type'),
    headerLength: res.headers.get('inference-header-content-length'),
  };
}

function viaNative(url: string, b: { bytes: Buffer; headerLength: number }, misalign = 0): Promise<NativeAnswer> | null {
  return fast.handle('POST', url, [['content-type', 'application/octet-stream'], ['inference-header-content-length', String(b.headerLength)]], b.bytes, misalign);
}

/** Both routes answer `b` the same, to the byte; returns the answer. */
async function expectSameAnswer(url: string, b: { bytes: Buffer; headerLength: number }, misalign = 0): Promise<NativeAnswer> {
  const taken = viaNative(url, b, misalign);
  expect(taken).not.toBeNull();
  const native = await taken!;
  const js = await viaJs(url, b);
  expect(native.status).toBe(js.status);
  expect(native.body.toString('latin1')).toBe(js.body.toString('latin1'));
  const expectedHeaders = js.headerLength !== null
    ? `Content-Type: ${js.contentType}\r\nInference-Header-Content-Length: ${js.headerLength}\r\n`
    : `Content-Type: ${js.contentType}\r\n`;
  expect(native.headers).toBe(expectedHeaders);
  return native;
}

describe('the native infer route answers what it takes exactly as the JS server does', () => {
  it('one image, the output asked for binary, with an id', async () => {
    const answer = await expectSameAnswer('/v2/models/mnist/infer', body({ id: 'req-1', inputs: [image(1)], outputs: logitsBinary }, pixels(1)));
    expect(answer.status).toBe(200);
    expect(answer.body.byteLength).toBeGreaterThan(40);
  });

  it('a batch of three, all outputs by binary_data_output, priority and timeout, on a versioned URL', async () => {
    const header = { inputs: [image(3)], parameters: { binary_data_output: true, priority: 0, timeout: 0 } };
    await expectSameAnswer('/v2/models/mnist/versions/1/infer', body(header, pixels(3)));
  });

  it('ids with escapes and non-ASCII text are echoed as JSON.stringify writes them', async () => {
    for (const id of ['é\n"\\\u0001 😀', '', '\u2028\t/']) {
      await expectSameAnswer('/v2/models/mnist/infer', body({ id, inputs: [image(1)], outputs: logitsBinary }, pixels(1)));
    }
    // Escapes in the request's JSON text, including a surrogate pair.
    const text = '{"id":"a\\u00e9\\ud83d\\ude00\\/\\b","inputs":[' + JSON.stringify(image(1)) + '],"outputs":[{"name":"logits","parameters":{"binary_data":true}}]}';
    await expectSameAnswer('/v2/models/mnist/infer', body(text, pixels(1)));
  });

  it('JSON tensors and JSON outputs, unknown keys, an escaped NUL in the id: answered as the JS codec does', async () => {
    const one = pixels(1);
    const image1 = image(1);
    const jsonImage = (data: unknown) => ({ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data });
    const flat = Array.from(new Float32Array(one.buffer), (v, i) => (i % 7 === 0 ? -v : v));
    const nested = [[Array.from({ length: 28 }, (_, r) => flat.slice(r * 28, r * 28 + 28))]];
    const cases: Array<[string, unknown, Uint8Array?]> = [
      ['JSON data, flat', { inputs: [jsonImage(flat)], outputs: logitsBinary }, new Uint8Array(0)],
      ['JSON data, nested, JSON output', { id: 'n', inputs: [jsonImage(nested)], outputs: [{ name: 'logits', parameters: { binary_data: false } }] }, new Uint8Array(0)],
      ['JSON data as integers and exponents', { inputs: [jsonImage(Array.from({ length: 784 }, (_, i) => (i % 3 === 0 ? i : i % 3 === 1 ? `${i}e-3` : 0)).map((v) => (typeof v === 'string' ? Number(v) : v)))] }, new Uint8Array(0)],
      ['unknown top-level key', { inputs: [image1], outputs: logitsBinary, sequence_id: 1 }],
      ['unknown input key', { inputs: [image(1, { extra: 1 })], outputs: logitsBinary }],
      ['output as JSON', { inputs: [image1], outputs: [{ name: 'logits', parameters: { binary_data: false } }] }],
      ['output with no encoding asked', { inputs: [image1], outputs: [{ name: 'logits' }] }],
      ['no outputs and no binary_data_output', { inputs: [image1] }],
      ['binary_data_output false', { inputs: [image1], parameters: { binary_data_output: false } }],
      ['unknown request parameter', { inputs: [image1], outputs: logitsBinary, parameters: { sequence_id: 1 } }],
      ['an escaped NUL in the id', `{"id":"a\\u0000b","inputs":[${JSON.stringify(image1)}],"outputs":${JSON.stringify(logitsBinary)}}`],
    ];
    for (const [what, header, tensors] of cases) {
      const b = body(header, tensors ?? one);
      const probe = viaNative('/v2/models/mnist/infer', b);
      expect(probe, what).not.toBeNull();
      await probe;
      await expectSameAnswer('/v2/models/mnist/infer', b);
    }
  });

  it('damaged headers: whatever the route still takes, the JS server answers the same way', async () => {
    const valid = JSON.stringify({ id: 'abc', inputs: [image(1)], outputs: logitsBinary, parameters: { priority: 0 } });
    const alphabet = ['{', '}', '[', ']', '"', ',', ':', '\\', ' ', '\n', '0', '1', '9', '-', '.', 'e', 'u', 'é', '\u2028', '😀', 'x', '\u0001'];
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let taken = 0;
    for (let round = 0; round < 400; round += 1) {
      let text = valid;
      for (let e = 0; e < 1 + random(2); e += 1) {
        const at = random(text.length);
        const c = alphabet[random(alphabet.length)]!;
        const kind = random(3);
        text = kind === 0 ? text.slice(0, at) + text.slice(at + 1) : kind === 1 ? text.slice(0, at) + c + text.slice(at) : text.slice(0, at) + c + text.slice(at + 1);
      }
      const b = body(text, pixels(1));
      const probe = viaNative('/v2/models/mnist/infer', b);
      if (probe === null) continue;
      await probe; // alone, so the next request is not batched with it (other batch sizes may round differently)
      taken += 1;
      await expectSameAnswer('/v2/models/mnist/infer', b);
    }
    expect(taken).toBeGreaterThan(0);
  });

  it('tensor bytes off their alignment in the body (copied before the engine reads them)', async () => {
    for (const misalign of [1, 2, 3]) {
      await expectSameAnswer('/v2/models/mnist/infer', body({ inputs: [image(2)], outputs: logitsBinary }, pixels(2)), misalign);
    }
  });

  it('queue rejections: a full queue (answered at once) and an expired queue timeout', async () => {
    const url = '/v2/models/mnist_queue/infer';
    fast.takeFailures(); // contract failures the tests above had answered natively
    // The first request waits in the one-place queue for its own 2 s timeout, so the next ones find the queue full.
    const waiting = viaNative(url, body({ inputs: [image(1)], outputs: logitsBinary, parameters: { timeout: 2_000_000 } }, pixels(1)));
    expect(waiting).not.toBeNull();
    const full = await expectSameAnswer(url, body({ inputs: [image(1)], outputs: logitsBinary }, pixels(1)));
    expect(full.status).toBe(503);
    expect(JSON.parse(full.body.toString()).error).toMatch(/maximum queue size/);
    const expired = await waiting!;
    expect(expired.status).toBe(503);
    // A 1 µs timeout expires before the batch delay ends.
    const timeout = await expectSameAnswer(url, body({ inputs: [image(1)], outputs: logitsBinary, parameters: { timeout: 1 } }, pixels(1)));
    expect(timeout.body.toString()).toBe(expired.body.toString());
    expect(fast.takeFailures()).toEqual([{ model: 'mnist_queue', version: '1', reason: 'REJECTED', count: 3 }]);
    expect(fast.takeFailures()).toEqual([]);
  });
});

describe('the classification extension: answered natively, exactly as the JS server answers it', () => {
  const typed = { FP32: Float32Array, FP64: Float64Array, INT32: Int32Array, UINT8: Uint8Array, FP16: Uint16Array };
  type Typed = keyof typeof typed;
  /** One binary input X of `values`, and the outputs asked for. */
  const classes = (model: string, datatype: Typed, shape: number[], values: number[], outputs: unknown[], extra: Record<string, unknown> = {}) => {
    const data = new Uint8Array(typed[datatype].from(values).buffer);
    const header = { inputs: [{ name: 'X', datatype, shape, parameters: { binary_data_size: data.byteLength } }], outputs, ...extra };
    return { url: `/v2/models/${model}/infer`, b: body(header, data) };
  };
  const asked = (k: unknown, binary?: boolean) => [{ name: 'Y', parameters: binary === undefined ? { classification: k } : { classification: k, binary_data: binary } }];
  /** The strings of a JSON answer's first output. */
  const jsonOutput = (answer: NativeAnswer) => (JSON.parse(answer.body.toString()) as { outputs: Array<{ name: string; datatype: string; shape: number[]; data: unknown[] }> }).outputs[0];
  /** The elements of a binary answer's only binary part (BYTES in KServe's layout). */
  const binaryStrings = (answer: NativeAnswer, headerLength: number) => {
    const out: string[] = [];
    for (let at = headerLength; at < answer.body.byteLength; at += 4 + answer.body.readUInt32LE(at)) {
      out.push(answer.body.subarray(at + 4, at + 4 + answer.body.readUInt32LE(at)).toString('utf8'));
    }
    return out;
  };

  it('batched FP32 with labels, JSON and binary: ties, NaN and the infinities, k up to past the class count', async () => {
    // In the first entry 0.7 twice (the lower index first); index 1's label line is empty, index 3 has none.
    const values = [0.1, 0.7, 0.2, 0.7, NaN, 3, -Infinity, Infinity];
    for (const k of [1, 3, 4, 10]) {
      for (const binary of [undefined, false, true]) {
        const { url, b } = classes('classes', 'FP32', [2, 4], values, asked(k, binary), { id: `k${k}` });
        expect((await expectSameAnswer(url, b)).status).toBe(200);
      }
    }
    const { url, b } = classes('classes', 'FP32', [2, 4], values, asked(3));
    expect(jsonOutput(await viaNative(url, b)!)).toEqual({
      name: 'Y', datatype: 'BYTES', shape: [2, 3],
      data: ['0.699999988:1', '0.699999988:3', '0.200000003:2:bird', 'inf:3', '3.000000000:1', '-inf:2:bird'],
    });
    const all = classes('classes', 'FP32', [2, 4], values, asked(10, true));
    const answer = await viaNative(all.url, all.b)!;
    const headerLength = Number(/Inference-Header-Content-Length: (\d+)/.exec(answer.headers)![1]);
    expect(JSON.parse(answer.body.subarray(0, headerLength).toString()).outputs[0].shape).toEqual([2, 4]);
    expect(binaryStrings(answer, headerLength)).toEqual([
      '0.699999988:1', '0.699999988:3', '0.200000003:2:bird', '0.100000001:0:cat', 'inf:3', '3.000000000:1', '-inf:2:bird', 'nan:0:cat',
    ]);
  });

  it('class results beside a plain output, JSON input data, binary_data_output', async () => {
    const values = [4, 3, 2, 1, 0.5, 0.25, 0.75, 1];
    const cases: Array<[string, unknown[], Record<string, unknown>?]> = [
      ['Y as classes in binary, Z as JSON', [{ name: 'Y', parameters: { classification: 2, binary_data: true } }, { name: 'Z', parameters: { binary_data: false } }]],
      ['Z in binary first, then Y as JSON classes', [{ name: 'Z', parameters: { binary_data: true } }, { name: 'Y', parameters: { classification: 2, binary_data: false } }]],
      ['both binary by binary_data_output', [{ name: 'Y', parameters: { classification: 3 } }, { name: 'Z' }], { parameters: { binary_data_output: true } }],
    ];
    for (const [what, outputs, extra] of cases) {
      const { url, b } = classes('classes', 'FP32', [2, 4], values, outputs, extra);
      expect((await expectSameAnswer(url, b)).status, what).toBe(200);
    }
    // Inputs as JSON `data`.
    const json = body({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4], data: [[0.5, 0.25, 0.75, 0.25]] }], outputs: asked(4) });
    const answer = await expectSameAnswer('/v2/models/classes/infer', json);
    expect(jsonOutput(answer).data).toEqual(['0.750000000:2:bird', '0.500000000:0:cat', '0.250000000:1', '0.250000000:3']);
  });

  it('without batching, INT32 and UINT8 with labels (CRLF and non-ASCII lines), and FP64 printed as std::fixed', async () => {
    const int32 = classes('classes_int32', 'INT32', [5], [5, -2, 9, 9, 0], asked(3));
    expect(jsonOutput(await expectSameAnswer(int32.url, int32.b))).toEqual({ name: 'Y', datatype: 'BYTES', shape: [3], data: ['9:2:two', '9:3:thr\u00e9e', '5:0:zero'] });
    const int32Binary = classes('classes_int32', 'INT32', [5], [5, -2, 9, 9, 0], asked(9, true));
    await expectSameAnswer(int32Binary.url, int32Binary.b);
    const uint8 = classes('classes_uint8', 'UINT8', [4], [200, 7, 255, 7], asked(3));
    expect(jsonOutput(await expectSameAnswer(uint8.url, uint8.b)).data).toEqual(['255:2:c', '200:0:a', '7:1:b']);
    const uint8Binary = classes('classes_uint8', 'UINT8', [4], [200, 7, 255, 7], asked(4, true));
    await expectSameAnswer(uint8Binary.url, uint8Binary.b);
    // -0, ties at the tenth decimal, past 1e21, a value that rounds to -0.000000000 (values a float
    // holds exactly: the CPU engine computes FP64 in FP32).
    const fp64 = classes('classes_fp64', 'FP64', [2, 3], [-0, 0.0009765625, 2 ** 70, -1e-12, 2 ** -30, -0.0009765625], asked(3));
    expect(jsonOutput(await expectSameAnswer(fp64.url, fp64.b)).data).toEqual([
      '1180591620717411303424.000000000:2', '0.000976562:1', '-0.000000000:0', '0.000000001:1', '-0.000000000:0', '-0.000976562:2',
    ]);
    const fp64Binary = classes('classes_fp64', 'FP64', [2, 3], [1, 2, 3, 3, 2, 1], asked(2, true));
    await expectSameAnswer(fp64Binary.url, fp64Binary.b);
  });

  it('refuses class results of an FP16 output after the model ran, as the JS path does, and counts them', async () => {
    fast.takeFailures(); // what the tests above had counted
    for (const binary of [undefined, false, true]) {
      const { url, b } = classes('classes_fp16', 'FP16', [1, 2], [0x3c00, 0x4000], asked(1, binary));
      const answer = await expectSameAnswer(url, b);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body.toString())).toEqual({ error: "class result not available for output 'Y' due to unsupported type 'FP16'" });
    }
    expect(fast.takeFailures()).toEqual([{ model: 'classes_fp16', version: '1', reason: 'OTHER', count: 3 }]);
    // Normalize's refusals come first, as on every path.
    const unknown = classes('classes', 'FP32', [1, 4], [1, 2, 3, 4], [{ name: 'W', parameters: { classification: 1 } }]);
    expect((await expectSameAnswer(unknown.url, unknown.b)).status).toBe(400);
  });
});

describe('native and JS requests on one model', () => {
  it('share batches: concurrent requests of both kinds all get their own rows', async () => {
    const mnist = manager.resolve('mnist') as ExecutorModel;
    const images = Array.from({ length: 16 }, (_, k) => new Uint8Array(Float32Array.from({ length: 784 }, (_, i) => ((i * (k + 3)) % 256) / 255).buffer));
    const reference = await Promise.all(images.map((data) => mnist.infer({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data }] })));
    const answers = await Promise.all(images.map((data, k) => {
      const b = body({ id: `r${k}`, inputs: [image(1)], outputs: logitsBinary }, data);
      return k % 2 === 0 ? viaNative('/v2/models/mnist/infer', b)! : viaJs('/v2/models/mnist/infer', b);
    }));
    answers.forEach((answer, k) => {
      expect(answer.status).toBe(200);
      const headerLength = answer.body.indexOf(']}') + 2;
      expect(JSON.parse(answer.body.subarray(0, headerLength).toString()).id).toBe(`r${k}`);
      const logits = new Float32Array(Uint8Array.from(answer.body.subarray(headerLength)).buffer);
      const expected = new Float32Array(Uint8Array.from(reference[k]!.outputs[0]!.data).buffer);
      expect(logits.length).toBe(10);
      // Batches of other sizes may round differently in the last bits.
      logits.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 3));
    });
  });

  it('unloading runs every request taken natively, exactly once, and then refuses', async () => {
    // Requests wait in the queue (10 s batch delay); the unload drains them instead of failing them.
    const dir = path.join(repo, 'mnist');
    const config = parseConfig(dir);
    config.dynamic_batching = { preferred_batch_size: [16], max_queue_delay_microseconds: 10_000_000 };
    const model = await loadModel(dir, '1', config);
    const solo = new FastInfer();
    solo.publish('solo', [{ version: '1', model: model.nativeModel()! }], '1');
    const b = body({ inputs: [image(1)], outputs: logitsBinary }, pixels(1));
    const send = () => solo.handle('POST', '/v2/models/solo/infer', [['inference-header-content-length', String(b.headerLength)]], b.bytes);
    const taken = Array.from({ length: 5 }, send);
    await model.unload(); // within the test timeout: the 10 s delay is not waited out
    const answers = await Promise.all(taken.map((t) => t!));
    for (const a of answers) expect(a.status).toBe(200);
    expect(solo.takeFailures()).toEqual([]);
    expect(send()).toBeNull();
  });
});

describe('the native infer route declines what the JS server should answer', () => {
  const valid = () => body({ id: 'x', inputs: [image(1)], outputs: logitsBinary }, pixels(1));
  const declined = (url: string, b: { bytes: Buffer; headerLength: number }, headers?: Array<[string, string]>, method = 'POST') =>
    fast.handle(method, url, headers ?? [['inference-header-content-length', String(b.headerLength)]], b.bytes);

  it('takes the valid base request', async () => {
    const answer = await declined('/v2/models/mnist/infer', valid());
    expect(answer?.status).toBe(200);
  });

  it('URLs and methods it does not serve', () => {
    for (const url of [
      '/v2/models/mnist/infer/', '/v2/models/mnis%74/infer', '/v2/models/mnist/infer?x=1', '/v2/models/other/infer',
      '/v2/models/mnist/versions/2/infer', '/v2/models/mnist/versions/x/infer', '/v2/models/mnist/versions//infer',
      '/v2/models/mnist/extra/infer', '/v2/models//infer', '/v2/models/mnist', '//v2/models/mnist/infer', 'http://h/v2/models/mnist/infer',
    ]) {
      expect(declined(url, valid()), url).toBeNull();
    }
    expect(declined('/v2/models/mnist/infer', valid(), undefined, 'PUT')).toBeNull();
  });

  it('headers: pure JSON, any Content-Encoding, repeated or malformed or lying header lengths', () => {
    const b = valid();
    const n = String(b.headerLength);
    const cases: Array<Array<[string, string]>> = [
      [],
      [['inference-header-content-length', n], ['content-encoding', 'identity']],
      [['inference-header-content-length', n], ['inference-header-content-length', n]],
      [['inference-header-content-length', ` ${n}`]],
      [['inference-header-content-length', `${n}.0`]],
      [['inference-header-content-length', String(b.bytes.byteLength + 1)]],
      [['inference-header-content-length', '0']],
    ];
    for (const headers of cases) expect(declined('/v2/models/mnist/infer', b, headers), JSON.stringify(headers)).toBeNull();
  });

  it('answers requests that break the model contract itself, in the words of every other path (Normalize)', async () => {
    const one = pixels(1);
    const image1 = image(1);
    const cases: Array<[string, unknown, Uint8Array?]> = [
      ['another datatype', { inputs: [image(1, { datatype: 'FP64' })], outputs: logitsBinary }],
      ['wrong rank', { inputs: [image(1, { shape: [1, 784] })], outputs: logitsBinary }],
      ['wrong dimension', { inputs: [image(1, { shape: [1, 1, 28, 27], parameters: { binary_data_size: 28 * 27 * 4 } })], outputs: logitsBinary }, new Uint8Array(28 * 27 * 4)],
      ['batch of zero', { inputs: [image(0)], outputs: logitsBinary }, new Uint8Array(0)],
      ['batch over max_batch_size', { inputs: [image(17)], outputs: logitsBinary }, pixels(17)],
      ['input twice', { inputs: [image1, image1], outputs: logitsBinary }, Buffer.concat([one, one])],
      ['unknown input', { inputs: [image(1, { name: 'pixels' })], outputs: logitsBinary }],
      ['unknown output', { inputs: [image1], outputs: [{ name: 'probs', parameters: { binary_data: true } }] }],
      ['output twice', { inputs: [image1], outputs: [...logitsBinary, ...logitsBinary] }],
      ['priority over 32 bits', { inputs: [image1], outputs: logitsBinary, parameters: { priority: 2 ** 32 } }],
    ];
    for (const [what, header, tensors] of cases) {
      const answer = await expectSameAnswer('/v2/models/mnist/infer', body(header, tensors ?? one));
      expect(answer.status, what).toBe(400);
    }
  });

  it('JSON the JS codec reads otherwise, or binary parts that do not add up', () => {
    const one = pixels(1);
    const image1 = image(1);
    const cases: Array<[string, unknown, Uint8Array?]> = [
      ['data and binary_data_size', { inputs: [image(1, { data: [1] })], outputs: logitsBinary }],
      ['null id', { id: null, inputs: [image1], outputs: logitsBinary }],
      ['numeric id', { id: 7, inputs: [image1], outputs: logitsBinary }],
      ['lying binary_data_size', { inputs: [image(1, { parameters: { binary_data_size: 784 * 4 - 4 } })], outputs: logitsBinary }],
      ['shape as strings', { inputs: [image(1, { shape: ['1', 1, 28, 28] })], outputs: logitsBinary }],
      ['fractional dimension', { inputs: [image(1, { shape: [1.5, 1, 28, 28] })], outputs: logitsBinary }],
      ['no inputs', { inputs: [], outputs: logitsBinary }, new Uint8Array(0)],
      ['empty outputs list', { inputs: [image1], outputs: [], parameters: { binary_data_output: true } }],
      ['classification k of 0', { inputs: [image1], outputs: [{ name: 'logits', parameters: { classification: 0 } }] }],
      ['fractional classification k', { inputs: [image1], outputs: [{ name: 'logits', parameters: { classification: 1.5 } }] }],
      ['classification k as a string', { inputs: [image1], outputs: [{ name: 'logits', parameters: { classification: '3' } }] }],
      ['classification k past 2^53', { inputs: [image1], outputs: [{ name: 'logits', parameters: { classification: 2 ** 60 } }] }],
      ['negative priority', { inputs: [image1], outputs: logitsBinary, parameters: { priority: -1 } }],
      ['fractional timeout', { inputs: [image1], outputs: logitsBinary, parameters: { timeout: 1.5 } }],
      ['timeout past 2^53', { inputs: [image1], outputs: logitsBinary, parameters: { timeout: 2 ** 60 } }],
      ['string priority', { inputs: [image1], outputs: logitsBinary, parameters: { priority: '1' } }],
      ['nested parameters', { inputs: [image1], outputs: logitsBinary, parameters: { priority: { a: [[[1]]] } } }],
      ['duplicate key', `{"inputs":[${JSON.stringify(image1)}],"outputs":${JSON.stringify(logitsBinary)},"id":"a","id":"b"}`],
      ['lone surrogate in the id', `{"id":"\\ud800","inputs":[${JSON.stringify(image1)}],"outputs":${JSON.stringify(logitsBinary)}}`],
      ['truncated JSON', JSON.stringify({ inputs: [image1], outputs: logitsBinary }).slice(0, -1)],
      ['bytes after the JSON', JSON.stringify({ inputs: [image1], outputs: logitsBinary }) + 'x'],
      ['a raw NUL in the id', `{"id":"a\u0000b","inputs":[${JSON.stringify(image1)}],"outputs":${JSON.stringify(logitsBinary)}}`],
      ['a JSON array', `[${JSON.stringify({ inputs: [image1] })}]`],
    ];
    for (const [what, header, tensors] of cases) {
      expect(declined('/v2/models/mnist/infer', body(header, tensors ?? one)), what).toBeNull();
    }
    // Tensor bytes missing or left over after the declared sizes.
    const b = valid();
    expect(declined('/v2/models/mnist/infer', { bytes: b.bytes.subarray(0, -4), headerLength: b.headerLength })).toBeNull();
    expect(declined('/v2/models/mnist/infer', { bytes: Buffer.concat([b.bytes, Buffer.alloc(4)]), headerLength: b.headerLength })).toBeNull();
    // Invalid UTF-8 in the JSON header.
    const raw = Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xc3, 0x28]), Buffer.from(`","inputs":[${JSON.stringify(image1)}],"outputs":${JSON.stringify(logitsBinary)}}`)]);
    expect(declined('/v2/models/mnist/infer', { bytes: Buffer.concat([raw, one]), headerLength: raw.byteLength })).toBeNull();
  });

  it('withdrawn models and models being unloaded', async () => {
    const mnist = manager.resolve('mnist') as ExecutorModel;
    fast.publish('mnist', [], '');
    expect(declined('/v2/models/mnist/infer', valid())).toBeNull();
    fast.publish('mnist', [{ version: '1', model: mnist.nativeModel()! }], '');
    expect(declined('/v2/models/mnist/infer', valid())).toBeNull(); // no default version
    expect(await declined('/v2/models/mnist/versions/1/infer', valid())).toMatchObject({ status: 200 });
    const handle = mnist.nativeModel()!;
    fast.publish('mnist', [{ version: '1', model: handle }], '1');
    await mnist.unload();
    expect(declined('/v2/models/mnist/infer', valid())).toBeNull();
  });
});
