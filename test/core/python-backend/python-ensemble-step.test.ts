/**
 * A Python model as an ensemble step, with no ensemble change: the example ensemble repository's
 * uint8 preprocessing (ONNX) and trained MNIST classifier, then a Python postprocessing model
 * (model.py: logits → label from labels.txt, BYTES), served over HTTP JSON, HTTP binary and gRPC.
 * The answers equal the steps run by hand.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/core/executor/index.js';
import type { InferTensor } from '../../../src/core/executor/types.js';
import { splitBytesElements } from '../../../src/core/kserve/codec/bytes-elements.js';
import { DiskModelSource } from '../../../src/core/server/disk-source.js';
import { silentLogger } from '../../../src/core/server/logger.js';
import { ModelManager } from '../../../src/core/server/model-manager.js';
import { GebeServer } from '../../../src/core/server/server.js';
import { call, grpcClient } from '../server/helpers/grpc-client.js';
import { binaryBody, postBinary, postJson } from '../server/helpers/http-client.js';
import { repoRoot } from '../../helpers/onnx-fixtures.js';
import { pythonForTests } from '../../helpers/python-env.js';

const python = pythonForTests();

const LABEL_CONFIG = `name: "label"
backend: "python"
max_batch_size: 16
input [ { name: "logits" data_type: TYPE_FP32 dims: [ 10 ] } ]
output [ { name: "label" data_type: TYPE_STRING dims: [ 1 ] }, { name: "digit" data_type: TYPE_INT64 dims: [ 1 ] } ]
dynamic_batching { }
`;
const LABEL_PY = `
import os
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        with open(os.path.join(args["model_repository"], "labels.txt")) as f:
            self.labels = [line.strip().encode() for line in f]

    def execute(self, requests):
        responses = []
        for request in requests:
            logits = pb_utils.get_input_tensor_by_name(request, "logits").as_numpy()
            digit = logits.argmax(axis=1).astype(np.int64).reshape(-1, 1)
            label = np.array([[self.labels[d]] for d in digit[:, 0]], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("label", label), pb_utils.Tensor("digit", digit)]))
        return responses
`;
const ENSEMBLE = `name: "labelled"
platform: "ensemble"
max_batch_size: 16
input [ { name: "raw" data_type: TYPE_UINT8 dims: [ 1, 28, 28 ] } ]
output [ { name: "label" data_type: TYPE_STRING dims: [ 1 ] }, { name: "digit" data_type: TYPE_INT64 dims: [ 1 ] } ]
ensemble_scheduling { step [
  { model_name: "preprocess" model_version: -1 input_map { key: "raw" value: "raw" } output_map { key: "image" value: "image" } },
  { model_name: "mnist" model_version: -1 input_map { key: "image" value: "image" } output_map { key: "logits" value: "logits" } },
  { model_name: "label" model_version: -1 input_map { key: "logits" value: "logits" } output_map [ { key: "label" value: "label" }, { key: "digit" value: "digit" } ] }
] }
`;

let repo: string;
let manager: ModelManager;
let server: GebeServer;
let http: string;
let grpcAddress: string;
let expectedLabels: string[];
let expectedDigits: number[];
/** Four digit-like images: deterministic uint8 noise, [4, 1, 28, 28]. */
const raw = Uint8Array.from({ length: 4 * 784 }, (_, i) => (i * 2654435761) % 251);

describe.skipIf(!python.available)('a Python model as an ensemble step', () => {
  beforeAll(async () => {
    repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-python-ensemble-'));
    for (const m of ['preprocess', 'mnist']) cpSync(path.join(repoRoot, 'fixtures/ensemble_repository', m), path.join(repo, m), { recursive: true });
    mkdirSync(path.join(repo, 'label', '1'), { recursive: true });
    writeFileSync(path.join(repo, 'label', 'config.pbtxt'), LABEL_CONFIG);
    writeFileSync(path.join(repo, 'label', '1', 'model.py'), LABEL_PY);
    cpSync(path.join(repoRoot, 'fixtures/ensemble_repository/mnist/labels.txt'), path.join(repo, 'label', 'labels.txt'));
    mkdirSync(path.join(repo, 'labelled', '1'), { recursive: true });
    writeFileSync(path.join(repo, 'labelled', 'config.pbtxt'), ENSEMBLE);
    manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
    await manager.start();
    expect(manager.statuses().filter((s) => s.state !== 'READY')).toEqual([]);
    server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 1 << 22 }, silentLogger);
    const ports = await server.listen();
    http = `http://127.0.0.1:${ports.http}`;
    grpcAddress = `127.0.0.1:${ports.grpc}`;
    // The steps by hand: preprocess and mnist through their own models, then argmax and labels.txt.
    const rawTensor: InferTensor = { name: 'raw', datatype: 'UINT8', shape: [4, 1, 28, 28], data: raw };
    const image = (await manager.resolve('preprocess').infer({ inputs: [rawTensor] })).outputs[0]!;
    const logits = new Float32Array((await manager.resolve('mnist').infer({ inputs: [image] })).outputs[0]!.data.slice().buffer);
    const labels = readFileSync(path.join(repo, 'label', 'labels.txt'), 'utf8').split('\n');
    expectedDigits = [0, 1, 2, 3].map((i) => { const row = [...logits.subarray(i * 10, i * 10 + 10)]; return row.indexOf(Math.max(...row)); });
    expectedLabels = expectedDigits.map((d) => labels[d]!.trim());
  });
  afterAll(async () => {
    await server?.stop(5000);
    if (repo) rmSync(repo, { recursive: true, force: true });
  });

  it('answers over HTTP JSON what the steps by hand give', async () => {
    const res = await postJson(`${http}/v2/models/labelled/infer`, { inputs: [{ name: 'raw', datatype: 'UINT8', shape: [4, 1, 28, 28], data: [...raw] }] });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries((res.body.outputs as Array<{ name: string; data: unknown[] }>).map((o) => [o.name, o.data]));
    expect(byName.label).toEqual(expectedLabels);
    expect(byName.digit).toEqual(expectedDigits);
  });

  it('answers over HTTP binary and gRPC what the steps by hand give', async () => {
    const { body, headerLength } = binaryBody({ parameters: { binary_data_output: true } }, [{ name: 'raw', datatype: 'UINT8', shape: [4, 1, 28, 28], bytes: raw }]);
    const binary = await postBinary(`${http}/v2/models/labelled/infer`, body, headerLength);
    expect(binary.status).toBe(200);
    expect(splitBytesElements(binary.binary.get('label')!).map((b) => Buffer.from(b).toString())).toEqual(expectedLabels);
    const client = grpcClient(grpcAddress);
    try {
      const res = await call(client, 'ModelInfer', { model_name: 'labelled', inputs: [{ name: 'raw', datatype: 'UINT8', shape: [4, 1, 28, 28] }], raw_input_contents: [Buffer.from(raw)] });
      const label = res.outputs.findIndex((o: { name: string }) => o.name === 'label');
      const digit = res.outputs.findIndex((o: { name: string }) => o.name === 'digit');
      expect(splitBytesElements(res.raw_output_contents[label]).map((b) => Buffer.from(b).toString())).toEqual(expectedLabels);
      const d = res.raw_output_contents[digit] as Buffer;
      expect(Array.from(new BigInt64Array(d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength)), Number)).toEqual(expectedDigits);
    } finally {
      client.close();
    }
    const stats = manager.resolve('label').stats();
    expect(stats.inference_stats.success.count).toBe(3);
  });
});
