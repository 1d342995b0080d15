/**
 * The Python-backend example repository (fixtures/python_repository) served by a real server with
 * a real Python: the postprocessing model, the BLS model and the ensemble with a Python step answer what running the steps by hand
 * gives, over HTTP JSON, HTTP binary and gRPC; a model that raises answers an error and the server
 * keeps serving; a model looping in execute() on is_cancelled() stops when its client gives up.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as grpcJs from '@grpc/grpc-js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinBytesElements, splitBytesElements } from '../../../../src/core/kserve/codec/bytes-elements.js';
import { call, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { binaryBody, getJson, postBinary, postJson } from '../helpers/http-client.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { repoRoot, startRealServer, type RealServer } from './helpers.js';

const python = pythonForTests();
const NAMES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** A deterministic 28x28 image per seed. */
const image = (seed: number): number[] => Array.from({ length: 784 }, (_, i) => ((i * 7919 + seed * 104729) % 255) / 255);
const argmax = (row: number[]): number => row.indexOf(Math.max(...row));

let server: RealServer;
let grpc: GrpcClient;

describe.skipIf(!python.available)('Python-backend models in gebe serve', () => {
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-python-serve-'));
    cpSync(path.join(repoRoot, 'fixtures/python_repository'), repo, { recursive: true });
    // Each: config.pbtxt with one FP32 input X and output Y of dims [1], and model.py's lines.
    const model = (name: string, lines: string[]) => {
      mkdirSync(path.join(repo, name, '1'), { recursive: true });
      writeFileSync(path.join(repo, name, 'config.pbtxt'), `name: "${name}"\nbackend: "python"\nmax_batch_size: 0\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n`);
      writeFileSync(path.join(repo, name, '1', 'model.py'), [...lines, ''].join('\n'));
    };
    model('raises', ['class TritonPythonModel:', '    def execute(self, requests):', '        return [1 / 0 for r in requests]']);
    model('bls_missing', [
      'import triton_python_backend_utils as pb_utils',
      'class TritonPythonModel:',
      '    def execute(self, requests):',
      '        x = pb_utils.get_input_tensor_by_name(requests[0], "X")',
      '        answer = pb_utils.InferenceRequest(model_name="nope", requested_output_names=["Y"], inputs=[x]).exec()',
      '        return [pb_utils.InferenceResponse(error=answer.error())]',
    ]);
    // X [seconds]: works (in steps of 10 ms) until done or its request is cancelled; says which in a file.
    model('patient', [
      'import os, time',
      'import triton_python_backend_utils as pb_utils',
      'class TritonPythonModel:',
      '    def initialize(self, args):',
      '        self.dir = args["model_repository"]',
      '    def execute(self, requests):',
      '        r = requests[0]',
      '        x = pb_utils.get_input_tensor_by_name(r, "X")',
      '        end = time.monotonic() + float(x.as_numpy()[0])',
      '        while time.monotonic() < end and not r.is_cancelled():',
      '            time.sleep(0.01)',
      '        with open(os.path.join(self.dir, "ended"), "a") as f:',
      '            f.write("cancelled\\n" if r.is_cancelled() else "done\\n")',
      '        if r.is_cancelled():',
      '            return [pb_utils.InferenceResponse(error=pb_utils.TritonError("cancelled", pb_utils.TritonError.CANCELLED))]',
      '        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", x.as_numpy())])]',
    ]);
    server = await startRealServer(repo);
    grpc = grpcClient(server.grpc);
  });
  afterAll(async () => {
    grpc?.close();
    await server?.stop();
  });

  /** digits_linear by hand, over HTTP JSON: the probabilities of each image. */
  async function probabilities(images: number[][]): Promise<number[][]> {
    const res = await postJson(`${server.http}/v2/models/digits_linear/infer`, { inputs: [{ name: 'image', datatype: 'FP32', shape: [images.length, 1, 28, 28], data: images.flat() }] });
    expect(res.status).toBe(200);
    const flat = res.body.outputs[0].data as number[];
    return images.map((_, i) => flat.slice(i * 10, i * 10 + 10));
  }

  it('postprocesses logits into labels (BYTES) over HTTP JSON, as running the steps by hand does', async () => {
    const probs = await probabilities([image(1), image(2), image(3)]);
    const res = await postJson(`${server.http}/v2/models/digits_label/infer`, { inputs: [{ name: 'probabilities', datatype: 'FP32', shape: [3, 10], data: probs.flat() }] });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries((res.body.outputs as Array<{ name: string; shape: number[]; data: unknown[] }>).map((o) => [o.name, o]));
    expect(byName.label).toMatchObject({ datatype: 'BYTES', shape: [3, 1], data: probs.map((p) => NAMES[argmax(p)]) });
    expect(byName.score!.data).toEqual(probs.map((p) => Math.fround(Math.max(...p))));
  });

  it('runs digits_linear through BLS over HTTP binary and gRPC, with the labels of the steps by hand', async () => {
    const images = [image(4), image(5)];
    const expected = (await probabilities(images)).map((p) => NAMES[argmax(p)]);
    const bytes = new Uint8Array(new Float32Array(images.flat()).buffer);
    const { body, headerLength } = binaryBody({ outputs: [{ name: 'label', parameters: { binary_data: true } }] }, [{ name: 'image', datatype: 'FP32', shape: [2, 1, 28, 28], bytes }]);
    const binary = await postBinary(`${server.http}/v2/models/digits_bls/infer`, body, headerLength);
    expect(binary.status).toBe(200);
    expect(splitBytesElements(binary.binary.get('label')!).map((b) => Buffer.from(b).toString())).toEqual(expected);

    const overGrpc = await call(grpc, 'ModelInfer', { model_name: 'digits_bls', inputs: [{ name: 'image', datatype: 'FP32', shape: [2, 1, 28, 28] }], raw_input_contents: [Buffer.from(bytes)] });
    expect(overGrpc.outputs[0]).toMatchObject({ name: 'label', datatype: 'BYTES' });
    expect(overGrpc.outputs[0].shape.map(Number)).toEqual([2, 1]);
    expect(splitBytesElements(overGrpc.raw_output_contents[0]).map((b) => Buffer.from(b).toString())).toEqual(expected);
  });

  it('runs the example ensemble whose second step is the Python model', async () => {
    const images = [image(7), image(8)];
    const probs = await probabilities(images);
    const res = await postJson(`${server.http}/v2/models/digits_pipeline/infer`, { inputs: [{ name: 'image', datatype: 'FP32', shape: [2, 1, 28, 28], data: images.flat() }] });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries((res.body.outputs as Array<{ name: string; data: unknown[] }>).map((o) => [o.name, o.data]));
    expect(byName.label).toEqual(probs.map((p) => NAMES[argmax(p)]));
    expect(byName.score).toEqual(probs.map((p) => Math.fround(Math.max(...p))));
  });

  it('answers the postprocessing model over gRPC, only the output asked for', async () => {
    const probs = await probabilities([image(6)]);
    const raw = Buffer.from(new Float32Array(probs[0]!).buffer);
    const res = await call(grpc, 'ModelInfer', { model_name: 'digits_label', inputs: [{ name: 'probabilities', datatype: 'FP32', shape: [1, 10] }], outputs: [{ name: 'label' }], raw_input_contents: [raw] });
    expect(res.outputs.map((o: { name: string }) => o.name)).toEqual(['label']);
    expect(Buffer.from(res.raw_output_contents[0]).equals(Buffer.from(joinBytesElements([Buffer.from(NAMES[argmax(probs[0]!)]!)])))).toBe(true);
  });

  it('tells execute() that its client gave up (request.is_cancelled()), and the instance serves the next at once', async () => {
    const ended = path.join(server.repo, 'patient', 'ended');
    const infer = (seconds: number, options: grpcJs.CallOptions) => new Promise<number>((resolve) => {
      const request = { model_name: 'patient', inputs: [{ name: 'X', datatype: 'FP32', shape: [1] }], raw_input_contents: [Buffer.from(new Float32Array([seconds]).buffer)] };
      grpc.ModelInfer!(request, options, (err: grpcJs.ServiceError | null) => resolve(err ? err.code : grpcJs.status.OK));
    });
    expect(await infer(60, { deadline: Date.now() + 300 })).toBe(grpcJs.status.DEADLINE_EXCEEDED);
    for (let i = 0; i < 500 && !existsSync(ended); i++) await new Promise((r) => setTimeout(r, 10));
    expect(readFileSync(ended, 'utf8')).toBe('cancelled\n');
    expect(await infer(0, {})).toBe(grpcJs.status.OK);
    expect(readFileSync(ended, 'utf8')).toBe('cancelled\ndone\n');
  });

  it('answers an exception in model.py with its last traceback line, and keeps serving', async () => {
    const res = await postJson(`${server.http}/v2/models/raises/infer`, { inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [1] }] });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/ZeroDivisionError: division by zero \(at model\.py:3 in (<listcomp>|execute)\)/);
    expect((await getJson(`${server.http}/v2/health/ready`)).status).toBe(200);
    const bls = await postJson(`${server.http}/v2/models/bls_missing/infer`, { inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [1] }] });
    expect(bls.body.error).toBe("BLS request from 'bls_missing' failed: Request for unknown model: 'nope' is not found");
    const stats = await getJson(`${server.http}/v2/models/digits_label/stats`);
    expect(stats.body.model_stats[0].inference_stats.success.count).toBeGreaterThanOrEqual(2);
    const meta = await getJson(`${server.http}/v2/models/digits_bls`);
    expect(meta.body).toMatchObject({ name: 'digits_bls', platform: 'python', inputs: [{ name: 'image', datatype: 'FP32', shape: [-1, 1, 28, 28] }] });
  });
});
