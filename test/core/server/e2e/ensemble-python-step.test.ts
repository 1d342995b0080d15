/**
 * Issue 18's pipeline end to end: an ensemble of the ONNX preprocessing model, the MNIST classifier
 * (both from fixtures/ensemble_repository) and the Python postprocessing model (digits_label from
 * fixtures/python_repository: model.py turning scores into a label), served by a real server with a
 * real Python. Over HTTP JSON, HTTP binary and gRPC the ensemble answers what running the three
 * steps by hand gives.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitBytesElements } from '../../../../src/core/kserve/codec/bytes-elements.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { call, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { binaryBody, getJson, postBinary, postJson } from '../helpers/http-client.js';
import { repoRoot, startRealServer, type RealServer } from './helpers.js';

const python = pythonForTests();

// The logits go straight to the Python model's `probabilities` input: its label is the argmax,
// which softmax would not change, and its score the largest logit.
const PIPELINE = `name: "digits_to_label"
platform: "ensemble"
max_batch_size: 8
input [ { name: "raw" data_type: TYPE_UINT8 dims: [ 1, 28, 28 ] } ]
output [
  { name: "label" data_type: TYPE_STRING dims: [ 1 ] },
  { name: "score" data_type: TYPE_FP32 dims: [ 1 ] }
]
ensemble_scheduling {
  step [
    { model_name: "preprocess" model_version: -1 input_map { key: "raw" value: "raw" } output_map { key: "image" value: "image" } },
    { model_name: "mnist" model_version: -1 input_map { key: "image" value: "image" } output_map { key: "logits" value: "logits" } },
    { model_name: "digits_label" model_version: -1 input_map { key: "probabilities" value: "logits" }
      output_map [ { key: "label" value: "label" }, { key: "score" value: "score" } ] }
  ]
}
`;

/** Deterministic 28x28 uint8 images: a bright stroke whose place depends on the seed. */
function rawImages(seeds: number[]): Uint8Array {
  const out = new Uint8Array(seeds.length * 784);
  seeds.forEach((seed, n) => {
    for (let i = 0; i < 784; i += 1) out[n * 784 + i] = (i * 31 + seed * 97) % 7 === 0 ? 255 : (i + seed) % 40;
  });
  return out;
}

let server: RealServer;
let grpc: GrpcClient;

describe.skipIf(!python.available)('an ensemble of ONNX preprocessing, MNIST and a Python postprocessing step', () => {
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-ensemble-python-'));
    for (const model of ['preprocess', 'mnist']) cpSync(path.join(repoRoot, 'fixtures/ensemble_repository', model), path.join(repo, model), { recursive: true });
    cpSync(path.join(repoRoot, 'fixtures/python_repository/digits_label'), path.join(repo, 'digits_label'), { recursive: true });
    mkdirSync(path.join(repo, 'digits_to_label', '1'), { recursive: true });
    writeFileSync(path.join(repo, 'digits_to_label', 'config.pbtxt'), PIPELINE);
    // Traces go to numbered files of one trace each, so each is complete as soon as it is written.
    server = await startRealServer(repo, 'none', [], undefined, {
      trace: { file: path.join(repo, 'trace.json'), setting: { timestamps: false, rate: 1, count: -1, logFrequency: 1 } },
    });
    grpc = grpcClient(server.grpc);
  });
  afterAll(async () => {
    grpc?.close();
    await server?.stop();
  });

  /** The three steps run one by one over HTTP JSON. */
  async function byHand(raw: Uint8Array, count: number): Promise<{ labels: string[]; scores: number[] }> {
    const pre = await postJson(`${server.http}/v2/models/preprocess/infer`, { inputs: [{ name: 'raw', datatype: 'UINT8', shape: [count, 1, 28, 28], data: Array.from(raw) }] });
    expect(pre.status).toBe(200);
    const logits = await postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [{ name: 'image', datatype: 'FP32', shape: [count, 1, 28, 28], data: pre.body.outputs[0].data }] });
    expect(logits.status).toBe(200);
    const post = await postJson(`${server.http}/v2/models/digits_label/infer`, { inputs: [{ name: 'probabilities', datatype: 'FP32', shape: [count, 10], data: logits.body.outputs[0].data }] });
    expect(post.status).toBe(200);
    const byName = Object.fromEntries((post.body.outputs as Array<{ name: string; data: unknown[] }>).map((o) => [o.name, o.data]));
    return { labels: byName.label as string[], scores: byName.score as number[] };
  }

  it('answers over HTTP JSON, HTTP binary and gRPC what the steps give by hand', async () => {
    const raw = rawImages([1, 2, 3]);
    const expected = await byHand(raw, 3);
    expect(expected.labels).toHaveLength(3);

    const json = await postJson(`${server.http}/v2/models/digits_to_label/infer`, { inputs: [{ name: 'raw', datatype: 'UINT8', shape: [3, 1, 28, 28], data: Array.from(raw) }] });
    expect(json.status).toBe(200);
    const jsonOut = Object.fromEntries((json.body.outputs as Array<{ name: string; shape: number[]; data: unknown[] }>).map((o) => [o.name, o]));
    expect(jsonOut.label).toMatchObject({ datatype: 'BYTES', shape: [3, 1], data: expected.labels });
    expect(jsonOut.score!.data).toEqual(expected.scores);

    const { body, headerLength } = binaryBody({ parameters: { binary_data_output: true } }, [{ name: 'raw', datatype: 'UINT8', shape: [3, 1, 28, 28], bytes: raw }]);
    const binary = await postBinary(`${server.http}/v2/models/digits_to_label/infer`, body, headerLength);
    expect(binary.status).toBe(200);
    expect(splitBytesElements(binary.binary.get('label')!).map((b) => Buffer.from(b).toString())).toEqual(expected.labels);
    expect(Array.from(new Float32Array(new Uint8Array(binary.binary.get('score')!).slice().buffer))).toEqual(expected.scores);

    const overGrpc = await call(grpc, 'ModelInfer', { model_name: 'digits_to_label', inputs: [{ name: 'raw', datatype: 'UINT8', shape: [3, 1, 28, 28] }], raw_input_contents: [Buffer.from(raw)] });
    const names = overGrpc.outputs.map((o: { name: string }) => o.name);
    const label = overGrpc.raw_output_contents[names.indexOf('label')];
    const score = overGrpc.raw_output_contents[names.indexOf('score')];
    expect(splitBytesElements(label).map((b) => Buffer.from(b).toString())).toEqual(expected.labels);
    expect(Array.from(new Float32Array(new Uint8Array(score).slice().buffer))).toEqual(expected.scores);

    // The ensemble counted its three requests; its Python step counted theirs beside the one by hand.
    const ensemble = (await getJson(`${server.http}/v2/models/digits_to_label/stats`)).body.model_stats[0];
    expect(ensemble.inference_stats.success.count).toBe(3);
    const step = (await getJson(`${server.http}/v2/models/digits_label/stats`)).body.model_stats[0];
    expect(step.inference_count).toBe(4 * 3);
  });

  it('traces every step of a traced request as its child at its levels, the Python one included (the trace extension)', async () => {
    const url = `${server.http}/v2/models/digits_to_label/trace/setting`;
    expect((await postJson(url, { trace_level: ['TIMESTAMPS', 'TENSORS'], trace_count: '1' })).status).toBe(200);
    const raw = rawImages([4]);
    for (let i = 0; i < 2; i++) {
      expect((await postJson(`${server.http}/v2/models/digits_to_label/infer`, { inputs: [{ name: 'raw', datatype: 'UINT8', shape: [1, 1, 28, 28], data: Array.from(raw) }] })).status).toBe(200);
    }
    const file = (i: number) => path.join(server.repo, `trace.json.${i}`);
    for (let i = 0; i < 60 && !existsSync(file(3)); i++) await new Promise((r) => setTimeout(r, 50));
    const files = [0, 1, 2, 3].map((i) => JSON.parse(readFileSync(file(i), 'utf8')) as Array<Record<string, any>>);
    const named = files.map((entries) => entries[0]!);
    const ensemble = named.find((t) => t.model_name === 'digits_to_label')!;
    expect(ensemble.parent_id).toBeUndefined();
    expect(named.filter((t) => t !== ensemble).map((t) => [t.model_name, t.parent_id]).sort()).toEqual([
      ['digits_label', ensemble.id], ['mnist', ensemble.id], ['preprocess', ensemble.id],
    ]);
    // Each trace has its timestamps and its tensors: the Python step's input and its two outputs.
    const python = files.find((entries) => entries[0]!.model_name === 'digits_label')!;
    expect(python.some((e) => Array.isArray(e.timestamps))).toBe(true);
    expect(python.filter((e) => e.activity).map((e) => [e.activity, e.tensor.name, e.tensor.dtype, e.tensor.shape])).toEqual([
      ['TENSOR_QUEUE_INPUT', 'probabilities', 'FP32', '1,10'], ['TENSOR_BACKEND_OUTPUT', 'label', 'BYTES', '1,1'], ['TENSOR_BACKEND_OUTPUT', 'score', 'FP32', '1,1'],
    ]);
    const mnistTensors = files.find((entries) => entries[0]!.model_name === 'mnist')!.filter((e) => e.activity);
    expect(mnistTensors.map((e) => [e.activity, e.tensor.name, e.tensor.shape])).toEqual([['TENSOR_QUEUE_INPUT', 'image', '1,1,28,28'], ['TENSOR_BACKEND_OUTPUT', 'logits', '1,10']]);
    const ensembleTensors = files.find((entries) => entries[0]!.model_name === 'digits_to_label')!.filter((e) => e.activity);
    expect(ensembleTensors.map((e) => [e.activity, e.tensor.name])).toEqual([
      ['TENSOR_QUEUE_INPUT', 'raw'], ['TENSOR_BACKEND_OUTPUT', 'label'], ['TENSOR_BACKEND_OUTPUT', 'score'],
    ]);
    // The second request was not traced (count 1), nor were its steps: after two more drains
    // (every 200 ms) no fifth file.
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(file(4))).toBe(false);
  });
});
