/**
 * Loading and unloading ensembles with real ONNX models and the real executor: an ensemble loads
 * its composing models (startup and the repository API, in explicit mode), unloading a composing
 * model makes the ensemble unavailable with Triton's reason, and every load error (missing model,
 * cycle, max_batch_size, tensor mismatch, a composing model that fails) names what is wrong in
 * Triton's words. A step that fails at run time fails the request naming the step and its model.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/core/executor/index.js';
import { DiskModelSource } from '../../../src/core/server/disk-source.js';
import { silentLogger } from '../../../src/core/server/logger.js';
import { ModelManager, type ControlMode } from '../../../src/core/server/model-manager.js';
import { GebeServer } from '../../../src/core/server/server.js';
import { OnnxGraphBuilder } from '../../helpers/onnx-builder.js';
import { call, grpcClient } from '../server/helpers/grpc-client.js';
import { getJson, postJson } from '../server/helpers/http-client.js';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const dirs: string[] = [];
let running: GebeServer | undefined;

afterEach(async () => {
  await running?.stop(2000);
  running = undefined;
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempRepo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-ensemble-'));
  dirs.push(dir);
  return dir;
}

function writeModel(repo: string, name: string, config: string, onnx?: Uint8Array): void {
  mkdirSync(path.join(repo, name, '1'), { recursive: true });
  writeFileSync(path.join(repo, name, 'config.pbtxt'), config);
  if (onnx) writeFileSync(path.join(repo, name, '1', 'model.onnx'), onnx);
}

const tensors = (dims: string, type = 'TYPE_FP32') => `input [ { name: "X" data_type: ${type} dims: ${dims} } ]\noutput [ { name: "Y" data_type: ${type} dims: ${dims} } ]\n`;
const identity = (batch: string | number = 'batch', n: number | string = 2) => new OnnxGraphBuilder('identity').input('X', 'FLOAT', [batch, n]).output('Y', 'FLOAT', [batch, n]).node('Identity', ['X'], ['Y']).encode();
const step = (model: string, x = 'X', y = 'Y') => `{ model_name: "${model}" model_version: -1 input_map { key: "X" value: "${x}" } output_map { key: "Y" value: "${y}" } }`;
const ensemble = (name: string, steps: string[], mbs = 4, dims = '[ 2 ]') => `name: "${name}"\nplatform: "ensemble"\nmax_batch_size: ${mbs}\n${tensors(dims)}ensemble_scheduling { step [ ${steps.join(', ')} ] }\n`;
const onnxModel = (name: string, mbs = 4, dims = '[ 2 ]') => `name: "${name}"\nbackend: "onnxruntime"\nmax_batch_size: ${mbs}\n${tensors(dims)}`;

async function serve(repo: string, mode: ControlMode = 'none', load: string[] = []): Promise<{ http: string; grpc: string; manager: ModelManager }> {
  const manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, mode);
  await manager.start(load);
  running = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 1 << 22, enableMetrics: false }, silentLogger);
  const ports = await running.listen();
  return { http: `http://127.0.0.1:${ports.http}`, grpc: `127.0.0.1:${ports.grpc}`, manager };
}

const inferX = (http: string, model: string, data = [1, 2], shape = [1, 2]) =>
  postJson(`${http}/v2/models/${model}/infer`, { inputs: [{ name: 'X', datatype: 'FP32', shape, data }] });
const index = async (http: string) => (await postJson(`${http}/v2/repository/index`, {})).body as Array<{ name: string; state?: string; reason?: string }>;
const reasonOf = async (http: string, name: string) => (await index(http)).find((e) => e.name === name)?.reason ?? '';

describe('explicit model control', () => {
  it('--load-model of an ensemble loads its composing models; unloading one makes the ensemble unavailable; loading either again brings it back', async () => {
    const repo = tempRepo();
    cpSync(path.join(root, 'fixtures', 'ensemble_repository'), repo, { recursive: true });
    const { http } = await serve(repo, 'explicit', ['digits_pipeline']);
    expect((await index(http)).map((e) => `${e.name}:${e.state}`)).toEqual(['digits_pipeline:READY', 'mnist:READY', 'postprocess:READY', 'preprocess:READY']);
    const request = { inputs: [{ name: 'raw', datatype: 'UINT8', shape: [1, 1, 28, 28], data: new Array(784).fill(0) }], outputs: [{ name: 'digit' }] };
    expect((await postJson(`${http}/v2/models/digits_pipeline/infer`, request)).status).toBe(200);

    expect((await postJson(`${http}/v2/repository/models/mnist/unload`, {})).status).toBe(200);
    expect((await fetch(`${http}/v2/models/digits_pipeline/ready`)).status).toBe(400);
    const refused = await postJson(`${http}/v2/models/digits_pipeline/infer`, request);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toContain('ensemble digits_pipeline contains models that are not available or ambiguous: mnist');
    expect(await reasonOf(http, 'digits_pipeline')).toBe('ensemble digits_pipeline contains models that are not available or ambiguous: mnist');

    // Loading the ensemble again loads the model again.
    expect((await postJson(`${http}/v2/repository/models/digits_pipeline/load`, {})).status).toBe(200);
    expect((await index(http)).find((e) => e.name === 'mnist')?.state).toBe('READY');
    const again = await postJson(`${http}/v2/models/digits_pipeline/infer`, request);
    expect(again.status).toBe(200);
    expect(again.body.outputs[0].name).toBe('digit');

    // And loading the composing model again brings the ensemble back with it (Triton).
    expect((await postJson(`${http}/v2/repository/models/preprocess/unload`, {})).status).toBe(200);
    expect((await fetch(`${http}/v2/models/digits_pipeline/ready`)).status).toBe(400);
    expect((await postJson(`${http}/v2/repository/models/preprocess/load`, {})).status).toBe(200);
    expect((await fetch(`${http}/v2/models/digits_pipeline/ready`)).status).toBe(200);
    expect((await postJson(`${http}/v2/models/digits_pipeline/infer`, request)).status).toBe(200);

    // An ensemble unloaded on purpose stays unloaded when its model comes back.
    expect((await postJson(`${http}/v2/repository/models/mnist/unload`, {})).status).toBe(200);
    expect((await postJson(`${http}/v2/repository/models/digits_pipeline/unload`, {})).status).toBe(200);
    expect((await postJson(`${http}/v2/repository/models/mnist/load`, {})).status).toBe(200);
    expect(await reasonOf(http, 'digits_pipeline')).toBe('unloaded');
  });
});

describe('unloading an ensemble', () => {
  const states = async (http: string) => (await index(http)).map((e) => `${e.name}:${e.state}`);

  it('leaves its composing models loaded; with unload_dependents (HTTP and gRPC) unloads those it loaded for itself', async () => {
    const repo = tempRepo();
    cpSync(path.join(root, 'fixtures', 'ensemble_repository'), repo, { recursive: true });
    const { http, grpc, manager } = await serve(repo, 'explicit', ['digits_pipeline', 'mnist']);
    expect((await getJson(`${http}/v2`)).body.extensions).toContain('model_repository(unload_dependents)');
    expect((await postJson(`${http}/v2/repository/models/digits_pipeline/unload`, {})).status).toBe(200);
    expect(await states(http)).toEqual(['digits_pipeline:UNAVAILABLE', 'mnist:READY', 'postprocess:READY', 'preprocess:READY']);

    expect((await postJson(`${http}/v2/repository/models/digits_pipeline/load`, {})).status).toBe(200);
    const bad = await postJson(`${http}/v2/repository/models/digits_pipeline/unload`, { parameters: { unload_dependents: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("unload parameter 'unload_dependents' for 'digits_pipeline' must be a boolean, got \"yes\"");
    expect((await postJson(`${http}/v2/repository/models/digits_pipeline/unload`, { parameters: { unload_dependents: true } })).status).toBe(200);
    // mnist was loaded on its own (--load-model): it stays.
    expect(await states(http)).toEqual(['digits_pipeline:UNAVAILABLE', 'mnist:READY', 'postprocess:UNAVAILABLE', 'preprocess:UNAVAILABLE']);
    expect(manager.isReady('mnist')).toBe(true);

    // The same over gRPC (bool_param); an ensemble loaded again brings its steps back first.
    expect((await postJson(`${http}/v2/repository/models/digits_pipeline/load`, {})).status).toBe(200);
    expect(await states(http)).toEqual(['digits_pipeline:READY', 'mnist:READY', 'postprocess:READY', 'preprocess:READY']);
    const client = grpcClient(grpc);
    try {
      await call(client, 'RepositoryModelUnload', { model_name: 'digits_pipeline', parameters: { unload_dependents: { bool_param: true } } });
    } finally {
      client.close();
    }
    expect(await states(http)).toEqual(['digits_pipeline:UNAVAILABLE', 'mnist:READY', 'postprocess:UNAVAILABLE', 'preprocess:UNAVAILABLE']);
  });
});

describe('load errors name what is wrong, in Triton words', () => {
  it('a composing model that is not in the repository', async () => {
    const repo = tempRepo();
    writeModel(repo, 'ens', ensemble('ens', [step('nothere')]), undefined);
    const { http } = await serve(repo);
    expect(await reasonOf(http, 'ens')).toBe("failed to load 'ens': ensemble ens contains models that are not available or ambiguous: nothere");
  });

  it('ensembles that reach each other (a cycle)', async () => {
    const repo = tempRepo();
    writeModel(repo, 'a', ensemble('a', [step('b')]));
    writeModel(repo, 'b', ensemble('b', [step('a')]));
    const { http } = await serve(repo);
    expect(await reasonOf(http, 'a')).toBe("failed to load 'a': circular dependency between ensembles: a -> ... -> b -> a");
    expect(await reasonOf(http, 'b')).toBe("failed to load 'b': circular dependency between ensembles: b -> ... -> a -> b");
  });

  it('an ensemble max_batch_size larger than a step model allows', async () => {
    const repo = tempRepo();
    writeModel(repo, 'small', onnxModel('small', 2), identity());
    writeModel(repo, 'big', ensemble('big', [step('small')], 8));
    const { http } = await serve(repo);
    expect(await reasonOf(http, 'big')).toContain('ensemble big allows maximum batch size 8, but it contains model small which only allows maximum batch size to be 2');
    expect(await reasonOf(http, 'small')).toBe('');
  });

  it('an ensemble tensor whose datatype differs between the ensemble and a step', async () => {
    const repo = tempRepo();
    writeModel(repo, 'ident', onnxModel('ident'), identity());
    writeModel(repo, 'wrongtype', `name: "wrongtype"\nplatform: "ensemble"\nmax_batch_size: 4\n${tensors('[ 2 ]', 'TYPE_INT32')}ensemble_scheduling { step [ ${step('ident')} ] }\n`);
    const { http } = await serve(repo);
    expect(await reasonOf(http, 'wrongtype')).toContain('in ensemble wrongtype, ensemble tensor X: inconsistent data type: TYPE_INT32 is inferred from model wrongtype while TYPE_FP32 is inferred from model ident');
  });

  it('a step mapping a tensor the model does not have', async () => {
    const repo = tempRepo();
    writeModel(repo, 'ident', onnxModel('ident'), identity());
    writeModel(repo, 'badmap', ensemble('badmap', ['{ model_name: "ident" input_map { key: "X" value: "X" } output_map { key: "Z" value: "Y" } }']));
    const { http } = await serve(repo);
    expect(await reasonOf(http, 'badmap')).toContain('in ensemble badmap, ensemble tensor Y is mapped from non-existing output Z in model ident');
  });

  it('a step pinned to a version the composing model does not serve', async () => {
    const repo = tempRepo();
    writeModel(repo, 'ident', onnxModel('ident'), identity());
    writeModel(repo, 'pinned', ensemble('pinned', ['{ model_name: "ident" model_version: 3 input_map { key: "X" value: "X" } output_map { key: "Y" value: "Y" } }']));
    const { http } = await serve(repo);
    expect(await reasonOf(http, 'pinned')).toContain("ensemble 'pinned' depends on 'ident' whose required version 3 is not loaded.");
  });

  it('a composing model that fails to load', async () => {
    const repo = tempRepo();
    writeModel(repo, 'broken', onnxModel('broken'), new Uint8Array([1, 2, 3, 4]));
    writeModel(repo, 'uses_broken', ensemble('uses_broken', [step('broken')]));
    const { http } = await serve(repo);
    expect(await reasonOf(http, 'uses_broken')).toMatch(/^failed to load 'uses_broken': ensemble 'uses_broken' depends on 'broken' which has no loaded version\. Model 'broken' loading failed with error: failed to load 'broken': .+/);
  });
});

describe('running', () => {
  it('two steps in a chain and a step that fails at run time, named with its model', async () => {
    const repo = tempRepo();
    writeModel(repo, 'ident', onnxModel('ident'), identity());
    // Declares output dims [2] but passes any width through: a width-3 request breaks its promise at run time.
    writeModel(repo, 'loose', `name: "loose"\nbackend: "onnxruntime"\nmax_batch_size: 4\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]\n`, identity('batch', 'n'));
    writeModel(repo, 'chain', ensemble('chain', [step('ident', 'X', 'mid'), step('ident', 'mid', 'Y')]));
    writeModel(repo, 'failing', ensemble('failing', [step('loose')], 4, '[ -1 ]'));
    const { http } = await serve(repo);
    const ok = await inferX(http, 'chain', [5, 6, 7, 8], [2, 2]);
    expect(ok.body.outputs[0]).toMatchObject({ name: 'Y', shape: [2, 2], data: [5, 6, 7, 8] });
    expect((await inferX(http, 'failing', [1, 2])).status).toBe(200);
    const bad = await inferX(http, 'failing', [1, 2, 3], [1, 3]);
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.body.error).toMatch(/^in ensemble 'failing', step 0 \(model 'loose'\): .*'Y'/);
    const ens = (await getJson(`${http}/v2/models/failing/stats`)).body.model_stats[0];
    expect(ens.inference_stats.fail.count).toBe(1);
    expect(ens.inference_stats.success.count).toBe(1);
  });

  it("each step is a request to its composing model's scheduler: concurrent ensemble requests are batched there", async () => {
    const repo = tempRepo();
    // A long queue delay and a preferred size of 4: the batcher runs only once 4 requests are queued.
    writeModel(repo, 'batched', `${onnxModel('batched')}dynamic_batching { preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 10000000 }\n`, identity());
    writeModel(repo, 'via', ensemble('via', [step('batched')]));
    const { http } = await serve(repo);
    const answers = await Promise.all([1, 2, 3, 4].map((i) => inferX(http, 'via', [i, -i])));
    expect(answers.map((a) => a.body.outputs[0].data)).toEqual([[1, -1], [2, -2], [3, -3], [4, -4]]);
    const composing = (await getJson(`${http}/v2/models/batched/stats`)).body.model_stats[0];
    expect(composing).toMatchObject({ inference_count: 4, execution_count: 1 });
    expect(composing.batch_stats.map((b: { batch_size: number }) => b.batch_size)).toEqual([4]);
    const own = (await getJson(`${http}/v2/models/via/stats`)).body.model_stats[0];
    expect(own).toMatchObject({ inference_count: 4, execution_count: 4 });
  });

  it('a non-batching step in a batching ensemble: the batch-1 dimension comes off for the step and back on for the answer (Triton)', async () => {
    const repo = tempRepo();
    writeModel(repo, 'flat', `name: "flat"\nbackend: "onnxruntime"\nmax_batch_size: 0\n${tensors('[ 2 ]')}`, new OnnxGraphBuilder('flat').input('X', 'FLOAT', [2]).output('Y', 'FLOAT', [2]).node('Identity', ['X'], ['Y']).encode());
    writeModel(repo, 'wrap', ensemble('wrap', [step('flat')]));
    const { http } = await serve(repo);
    const ok = await inferX(http, 'wrap', [3, 4], [1, 2]);
    expect(ok.body.outputs[0]).toMatchObject({ name: 'Y', shape: [1, 2], data: [3, 4] });
    const two = await inferX(http, 'wrap', [1, 2, 3, 4], [2, 2]);
    expect(two.status).toBe(400);
    expect(two.body.error).toBe("in ensemble 'wrap', step 0 (model 'flat'): unexpected shape for input 'X' for model 'flat'. Expected [2], got [2,2].");
  });

  it('independent steps both run and their outputs come back together', async () => {
    const repo = tempRepo();
    writeModel(repo, 'ident', onnxModel('ident'), identity());
    writeModel(repo, 'fork', `name: "fork"\nplatform: "ensemble"\nmax_batch_size: 4\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 2 ] } ]\n` +
      'output [ { name: "A" data_type: TYPE_FP32 dims: [ 2 ] }, { name: "B" data_type: TYPE_FP32 dims: [ 2 ] } ]\n' +
      `ensemble_scheduling { step [ ${step('ident', 'X', 'A')}, ${step('ident', 'X', 'B')} ] }\n`);
    const { http } = await serve(repo);
    const res = await inferX(http, 'fork', [7, 8]);
    expect(res.body.outputs.map((o: { name: string; data: number[] }) => [o.name, o.data])).toEqual([['A', [7, 8]], ['B', [7, 8]]]);
    expect((await getJson(`${http}/v2/models/ident/stats`)).body.model_stats[0].inference_count).toBe(2);
  });
});
