/**
 * The example ensemble (fixtures/ensemble_repository: uint8 preprocess → the trained mnist →
 * softmax/argmax postprocess) served by a real gebe server on port 0 with the real executor,
 * driven over HTTP JSON, HTTP binary and gRPC: the answers equal the three steps run by hand,
 * a request that asks for fewer outputs runs fewer steps, and the ensemble and its composing
 * models report statistics and metrics as Triton does.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/core/executor/index.js';
import type { InferTensor, ModelStatistics } from '../../../src/core/executor/types.js';
import { readImage } from '../../../src/core/images/decode.js';
import { invert, looksDarkOnLight, resize, toChannels } from '../../../src/core/images/prepare.js';
import { DiskModelSource } from '../../../src/core/server/disk-source.js';
import { silentLogger } from '../../../src/core/server/logger.js';
import { ModelManager } from '../../../src/core/server/model-manager.js';
import { GebeServer } from '../../../src/core/server/server.js';
import { call, grpcClient } from '../server/helpers/grpc-client.js';
import { binaryBody, getJson, postBinary, postJson } from '../server/helpers/http-client.js';
import { runGebe } from '../../helpers/gebe-cli.js';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const repository = path.join(root, 'fixtures', 'ensemble_repository');
const DIGITS = [3, 7, 1];

/** The template's sample digits as MNIST-style uint8 pixels, [3, 1, 28, 28]. */
function rawDigits(): Uint8Array {
  const out = new Uint8Array(DIGITS.length * 784);
  DIGITS.forEach((d, i) => {
    let image = resize(toChannels(readImage(path.join(root, 'templates', 'mnist', 'samples', `digit-${d}.png`)), 1), 28, 28);
    if (looksDarkOnLight(image)) image = invert(image);
    out.set(image.data, i * 784);
  });
  return out;
}

let manager: ModelManager;
let server: GebeServer;
let http: string;
let grpcAddress: string;
const raw = rawDigits();
const rawTensor: InferTensor = { name: 'raw', datatype: 'UINT8', shape: [DIGITS.length, 1, 28, 28], data: raw };
let byHand: Map<string, InferTensor>;

const f32 = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const i64 = (b: Uint8Array) => Array.from(new BigInt64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)), Number);
const stats = async (model: string): Promise<ModelStatistics> => (await getJson(`${http}/v2/models/${model}/stats`)).body.model_stats[0];

beforeAll(async () => {
  manager = new ModelManager(new DiskModelSource(repository), loadModel, silentLogger, 'none');
  await manager.start();
  server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 1 << 22 }, silentLogger);
  const ports = await server.listen();
  http = `http://127.0.0.1:${ports.http}`;
  grpcAddress = `127.0.0.1:${ports.grpc}`;
  // The three steps by hand, each through its own model.
  const image = (await manager.resolve('preprocess').infer({ inputs: [rawTensor] })).outputs[0]!;
  const logits = (await manager.resolve('mnist').infer({ inputs: [image] })).outputs[0]!;
  const post = (await manager.resolve('postprocess').infer({ inputs: [logits] })).outputs;
  byHand = new Map([['image', image], ['logits', logits], ...post.map((t): [string, InferTensor] => [t.name, t])]);
});
afterAll(async () => {
  await server.stop(2000);
});

describe('the example repository', () => {
  it('passes `gebe validate` with no findings', async () => {
    const { code, out } = await runGebe(['validate', repository]);
    expect(out).toContain('no problems (4 models, 4 config files checked)');
    expect(code).toBe(0);
  });
});

describe('the steps by hand (the reference the ensemble is compared with)', () => {
  it('preprocess divides by 255, postprocess picks the largest logit, and mnist reads the sample digits', () => {
    const image = f32(byHand.get('image')!.data);
    expect(image[300]).toBe(Math.fround(Math.fround(raw[300]!) * Math.fround(1 / 255)));
    const logits = f32(byHand.get('logits')!.data);
    const argmax = DIGITS.map((_, i) => { const row = Array.from(logits.subarray(i * 10, i * 10 + 10)); return row.indexOf(Math.max(...row)); });
    expect(i64(byHand.get('digit')!.data)).toEqual(argmax);
    expect(argmax).toEqual(DIGITS);
  });
});

describe('an ensemble served like any model', () => {
  it('is READY with platform "ensemble" in its metadata and config', async () => {
    expect((await fetch(`${http}/v2/models/digits_pipeline/ready`)).status).toBe(200);
    const meta = (await getJson(`${http}/v2/models/digits_pipeline`)).body;
    expect(meta.platform).toBe('ensemble');
    expect(meta.inputs).toEqual([{ name: 'raw', datatype: 'UINT8', shape: [-1, 1, 28, 28] }]);
  });

  it('HTTP JSON: outputs equal the steps run by hand', async () => {
    const res = await postJson(`${http}/v2/models/digits_pipeline/infer`, { id: 'json-1', inputs: [{ name: 'raw', datatype: 'UINT8', shape: rawTensor.shape, data: Array.from(raw) }] });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe('json-1');
    const out = new Map<string, { shape: number[]; data: number[] }>(res.body.outputs.map((o: { name: string }) => [o.name, o]));
    expect([...out.keys()].sort()).toEqual(['digit', 'logits', 'probabilities']);
    expect(out.get('digit')!.shape).toEqual([3, 1]);
    expect(out.get('digit')!.data).toEqual(DIGITS);
    expect(Float32Array.from(out.get('probabilities')!.data)).toEqual(f32(byHand.get('probabilities')!.data));
    expect(Float32Array.from(out.get('logits')!.data)).toEqual(f32(byHand.get('logits')!.data));
  });

  it('HTTP binary (the native front end hands ensemble requests to JS): bytes equal the steps by hand', async () => {
    const { body, headerLength } = binaryBody({ outputs: [{ name: 'probabilities', parameters: { binary_data: true } }, { name: 'digit', parameters: { binary_data: true } }] }, [{ name: 'raw', datatype: 'UINT8', shape: rawTensor.shape, bytes: raw }]);
    const res = await postBinary(`${http}/v2/models/digits_pipeline/infer`, body, headerLength);
    expect(res.status).toBe(200);
    expect(res.json.outputs.map((o: { name: string }) => o.name)).toEqual(['probabilities', 'digit']);
    expect(Buffer.compare(res.binary.get('probabilities')!, Buffer.from(byHand.get('probabilities')!.data))).toBe(0);
    expect(Buffer.compare(res.binary.get('digit')!, Buffer.from(byHand.get('digit')!.data))).toBe(0);
  });

  it('gRPC: raw_output_contents equal the steps by hand', async () => {
    const client = grpcClient(grpcAddress);
    try {
      const res = await call(client, 'ModelInfer', {
        model_name: 'digits_pipeline', inputs: [{ name: 'raw', datatype: 'UINT8', shape: rawTensor.shape }], raw_input_contents: [Buffer.from(raw)],
        outputs: [{ name: 'digit' }, { name: 'logits' }],
      });
      expect(res.model_name).toBe('digits_pipeline');
      expect(res.outputs.map((o: { name: string }) => o.name)).toEqual(['digit', 'logits']);
      expect(i64(new Uint8Array(res.raw_output_contents[0]))).toEqual(DIGITS);
      expect(Buffer.compare(Buffer.from(res.raw_output_contents[1]), Buffer.from(byHand.get('logits')!.data))).toBe(0);
    } finally {
      client.close();
    }
  });

  it('asking only for logits runs only the steps that produce them (postprocess is not run)', async () => {
    const before = await stats('postprocess');
    const res = await postJson(`${http}/v2/models/digits_pipeline/infer`, { inputs: [{ name: 'raw', datatype: 'UINT8', shape: rawTensor.shape, data: Array.from(raw) }], outputs: [{ name: 'logits' }] });
    expect(res.body.outputs.map((o: { name: string }) => o.name)).toEqual(['logits']);
    expect((await stats('postprocess')).inference_stats.success.count).toBe(before.inference_stats.success.count);
  });

  it('keeps statistics for the ensemble and counts its requests on each composing model', async () => {
    const [ens, pre, mnist] = await Promise.all([stats('digits_pipeline'), stats('preprocess'), stats('mnist')]);
    await postJson(`${http}/v2/models/digits_pipeline/infer`, { inputs: [{ name: 'raw', datatype: 'UINT8', shape: rawTensor.shape, data: Array.from(raw) }] });
    const [ens2, pre2, mnist2] = await Promise.all([stats('digits_pipeline'), stats('preprocess'), stats('mnist')]);
    expect(ens2.inference_stats.success.count).toBe(ens.inference_stats.success.count + 1);
    expect(ens2.inference_count).toBe(ens.inference_count + 3);
    expect(ens2.execution_count).toBe(ens.execution_count + 1);
    expect(ens2.inference_stats.success.ns).toBeGreaterThan(ens.inference_stats.success.ns);
    expect(ens2.batch_stats.find((b) => b.batch_size === 3)!.compute_infer.count).toBeGreaterThan(0);
    expect(pre2.inference_count).toBe(pre.inference_count + 3);
    expect(mnist2.inference_count).toBe(mnist.inference_count + 3);
    const all = (await getJson(`${http}/v2/models/stats`)).body.model_stats.map((s: { name: string }) => s.name).sort();
    expect(all).toEqual(['digits_pipeline', 'mnist', 'postprocess', 'preprocess']);
  });

  it('exposes per-model metrics for the ensemble and its composing models', async () => {
    const text = await (await fetch(`http://127.0.0.1:${server.ports.metrics}/metrics`)).text();
    for (const model of ['digits_pipeline', 'preprocess', 'mnist', 'postprocess']) {
      expect(text).toMatch(new RegExp(`nv_inference_request_success\\{model="${model}",version="1"\\} [1-9]`));
    }
  });

  it("a bad request is refused with the ensemble's own input contract", async () => {
    const res = await postJson(`${http}/v2/models/digits_pipeline/infer`, { inputs: [{ name: 'raw', datatype: 'FP32', shape: [1, 1, 28, 28], data: new Array(784).fill(0) }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("inference input 'raw' data-type is 'FP32', but model 'digits_pipeline' expects 'UINT8'");
  });
});
