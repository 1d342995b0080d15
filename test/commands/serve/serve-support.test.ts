/**
 * What serve does with config fields it does not implement, through `runServe` with the real
 * executor on port 0: models it cannot run faithfully (decoupled models, iterative sequences) are
 * refused at load with a reason the table, the log and the endpoints show; ensembles, Python models
 * and sequence models are served; fields that have no effect are accepted and named as ignored.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, grpcClient } from '../../core/server/helpers/grpc-client.js';
import { memoryIO } from '../../../src/io.js';
import { runServe, type ServeDeps } from '../../../src/commands/serve/run.js';
import type { ServeOptions } from '../../../src/commands/serve/options.js';
import { loadModel } from '../../../src/core/executor/index.js';
import { DiskModelSource } from '../../../src/core/server/disk-source.js';
import type { ServerPorts } from '../../../src/core/server/server.js';
import { OnnxGraphBuilder } from '../../helpers/onnx-builder.js';
import { serveSupport } from '../../../src/core/server/serve-support.js';

const identityOnnx = (n = 2) => new OnnxGraphBuilder('identity').input('X', 'FLOAT', ['batch', n]).output('Y', 'FLOAT', ['batch', n]).node('Identity', ['X'], ['Y']).encode();
const TENSORS = 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 2 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]\n';
const ONNX = (name: string, extra = '') => `name: "${name}"\nbackend: "ge"\nmax_batch_size: 4\n${TENSORS}${extra}`;

let repo: string;
let ports: ServerPorts;
let stopServer: () => Promise<void>;
const io = memoryIO();
const url = (p: string) => `http://127.0.0.1:${ports.http}${p}`;

function model(name: string, config: string, files: Record<string, Uint8Array | string> = { 'model.onnx': identityOnnx() }): void {
  mkdirSync(path.join(repo, name, '1'), { recursive: true });
  writeFileSync(path.join(repo, name, 'config.pbtxt'), config);
  for (const [file, content] of Object.entries(files)) writeFileSync(path.join(repo, name, '1', file), content);
}

/** Runs `gebe serve` on `repo` with the real executor on port 0; resolves once it listens. */
async function startServe(repository: string, out: ReturnType<typeof memoryIO>, extra: Partial<ServeOptions> = {}): Promise<{ ports: ServerPorts; stop: () => Promise<void> }> {
  let stopped!: (s: string) => void;
  const stopSignal = new Promise<string>((r) => (stopped = r));
  let listening!: (p: ServerPorts) => void;
  const ready = new Promise<ServerPorts>((r) => (listening = r));
  const deps: ServeDeps = { io: out, loadModel, createSource: (r) => new DiskModelSource(r), waitForStop: () => stopSignal, onListening: (_server, p) => listening(p) };
  const opts: ServeOptions = {
    repository, host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, controlMode: 'none', loadModels: [],
    pollSeconds: 1, exitOnError: false, exitTimeoutSeconds: 2, logVerboseLevel: 0, logFormat: 'text', maxBodyBytes: 1 << 20, ...extra,
  };
  const done = runServe(opts, deps);
  const p = await Promise.race([ready, done.then((): ServerPorts => { throw new Error('server ended early'); })]);
  return { ports: p, stop: async () => { stopped('SIGTERM'); await done; } };
}

beforeAll(async () => {
  repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-serve-support-'));
  model('plain', ONNX('plain'));
  model('tuned', ONNX('tuned', 'optimization { priority: PRIORITY_MAX }\nresponse_cache { enable: true }\ninstance_group [ { count: 1 kind: KIND_CPU rate_limiter { priority: 2 } } ]\n'));
  model('stateful', ONNX('stateful', 'sequence_batching { max_sequence_idle_microseconds: 5000000 }\nresponse_cache { enable: true }\n'));
  model('iterative', ONNX('iterative', 'sequence_batching { iterative_sequence: true }\n'));
  // An ensemble's version directory is empty, as Triton's examples have it.
  model('pipeline', 'name: "pipeline"\nplatform: "ensemble"\nmax_batch_size: 4\n' + TENSORS +
    'ensemble_scheduling { step [ { model_name: "plain" model_version: -1 input_map { key: "X" value: "X" } output_map { key: "Y" value: "Y" } } ] max_inflight_requests: 8 }\n', {});
  model('py', `name: "py"\nbackend: "python"\nmax_batch_size: 4\n${TENSORS}`, { 'model.py': 'class TritonPythonModel:\n    pass\n' });
  const warmup = (name: string, batch: number, count: number, dims: string, data = 'zero_data: true') =>
    `{ name: "${name}" batch_size: ${batch} count: ${count} inputs { key: "X" value: { data_type: TYPE_FP32 dims: ${dims} ${data} } } }`;
  model('warm', ONNX('warm', `model_warmup [ ${warmup('zeros', 2, 3, '[ 2 ]')}, ${warmup('noise', 1, 1, '[ 2 ]', 'random_data: true')} ]\n`));
  // Dims the validate rules do not compare: the warmup request itself fails.
  model('coldfail', ONNX('coldfail', `model_warmup [ ${warmup('bad_dims', 1, 1, '[ 3 ]')} ]\n`));
  model('classes', 'name: "classes"\nbackend: "ge"\nmax_batch_size: 4\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] label_filename: "labels.txt" } ]\n', { 'model.onnx': identityOnnx(4) });
  writeFileSync(path.join(repo, 'classes', 'labels.txt'), 'cat\ndog\nbird\n');
  ({ ports, stop: stopServer } = await startServe(repo, io));
});
afterAll(async () => {
  await stopServer();
  rmSync(repo, { recursive: true, force: true });
});

const tableRow = (name: string) => io.out().split('\n').find((l) => l.startsWith(`${name} `)) ?? '';

describe('serve refuses what it does not run and names what it ignores', () => {
  it('serves a sequence_batching model through the sequence batcher, which wants sequence ids', async () => {
    // A sequence model's answers depend on its state: the response cache does not stand for them (as Triton's).
    expect(tableRow('stateful')).toMatch(/READY.*ignored \(not implemented by gebe serve\): response_cache/);
    const body = (parameters: object) => JSON.stringify({ parameters, inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 2], data: [1, 2] }] });
    const bare = await fetch(url('/v2/models/stateful/infer'), { method: 'POST', body: body({}) });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { error: string }).error).toBe("inference request to model 'stateful' must specify a non-zero or non-empty correlation ID (request parameter sequence_id)");
    const ok = await fetch(url('/v2/models/stateful/infer'), { method: 'POST', body: body({ sequence_id: 3, sequence_start: true, sequence_end: true }) });
    expect(ok.status).toBe(200);
  });

  it('refuses what the sequence batcher does not implement', async () => {
    expect(tableRow('iterative')).toMatch(/UNAVAILABLE.*sequence_batching\.iterative_sequence of model 'iterative': iterative sequences \(request rescheduling\) are implemented by gebe serve for Python-backend models only/);
  });

  it('serves an ensemble without looking for a model file in its empty version directory', async () => {
    const row = tableRow('pipeline');
    // max_inflight_requests is served (step gates), so nothing is named as ignored.
    expect(row).toMatch(/READY/);
    expect(row).not.toMatch(/ignored/);
    expect(row).not.toMatch(/no model file/);
    expect(io.err()).not.toMatch(/no model file in .*pipeline/);
    const res = await fetch(url('/v2/models/pipeline/infer'), { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 2], data: [3, 4] }] }) });
    expect(((await res.json()) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data).toEqual([3, 4]);
  });

  it('loads a Python backend model through its stub, whose load errors the table and the index show', async () => {
    // This model.py has no execute(): the load fails with Python's own account of it (or, on a
    // machine without python3 and numpy, with what to install).
    expect(tableRow('py')).toMatch(/UNAVAILABLE.*(has no execute\(self, requests\) method|python3|numpy)/);
    const index = (await (await fetch(url('/v2/repository/index'), { method: 'POST', body: '{}' })).json()) as Array<{ name: string; reason?: string }>;
    expect(index.find((e) => e.name === 'py')?.reason).toMatch(/model 'py'/);
  });

  it('serves a model with fields that have no effect, naming them in the table and the log', async () => {
    expect(tableRow('tuned')).toMatch(/READY.*ignored \(not implemented by gebe serve\): optimization$/);
    expect(io.err()).toMatch(/config fields that gebe serve does not implement are ignored.*tuned/);
    // The server was started without a response cache: it says how to give it one.
    expect(io.err()).toMatch(/response_cache is enabled in its config, but the server has no response cache.*tuned.*--cache-config local,size=<bytes>/);
    const res = await fetch(url('/v2/models/tuned/infer'), { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 2], data: [1, 2] }] }) });
    expect(((await res.json()) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data).toEqual([1, 2]);
  });

  it('says nothing about a model that uses only what serve implements', () => {
    expect(tableRow('plain')).toMatch(/READY/);
    expect(tableRow('plain')).not.toMatch(/ignored/);
  });
});

describe('--strict-readiness', () => {
  it('true (the default): the server is not ready while a model failed to load, over HTTP and gRPC', async () => {
    expect((await fetch(url('/v2/health/ready'))).status).toBe(400);
    const client = grpcClient(`127.0.0.1:${ports.grpc}`);
    try {
      expect(await call(client, 'ServerReady', {})).toEqual({ ready: false });
    } finally {
      client.close();
    }
  });

  it('false: the server is ready once it is up, the failed models still not ready', async () => {
    const lax = await startServe(repo, memoryIO(), { strictReadiness: false });
    try {
      expect((await fetch(`http://127.0.0.1:${lax.ports.http}/v2/health/ready`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${lax.ports.http}/v2/models/iterative/ready`)).status).toBe(400);
      const client = grpcClient(`127.0.0.1:${lax.ports.grpc}`);
      try {
        expect(await call(client, 'ServerReady', {})).toEqual({ ready: true });
      } finally {
        client.close();
      }
    } finally {
      await lax.stop();
    }
  });
});

describe('model_warmup at load', () => {
  it('runs every sample before the model is READY, one log line per sample, counted in the statistics', async () => {
    expect(tableRow('warm')).toMatch(/READY/);
    const lines = io.err().split('\n').filter((l) => /running warmup sample/.test(l) && /warm\b/.test(l) && !/coldfail/.test(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/sample=zeros.*batch_size=2.*count=3/);
    expect(lines[1]).toMatch(/sample=noise/);
    // The warmup's log lines come before the model's READY line.
    const err = io.err();
    expect(err.indexOf('sample=noise')).toBeLessThan(err.search(/model ready.*model=warm\b/));
    const stats = (await (await fetch(url('/v2/models/warm/stats'))).json()) as { model_stats: Array<{ inference_count: number; execution_count: number; inference_stats: { success: { count: number } } }> };
    // zeros: 3 executions of batch 2; noise: 1 of batch 1 (as Triton, warmup requests report statistics).
    expect(stats.model_stats[0]).toMatchObject({ inference_count: 7, execution_count: 4, inference_stats: { success: { count: 4 } } });
  });

  it('fails the load when a sample fails, naming the sample', async () => {
    expect(tableRow('coldfail')).toMatch(/UNAVAILABLE.*warmup sample 'bad_dims' \(coldfail\/config\.pbtxt\) failed: /);
    expect((await fetch(url('/v2/models/coldfail/ready'))).status).toBe(400);
  });
});

describe('the classification extension', () => {
  // Two batch entries; in the first, 0.7 twice (the lower index first) and index 3 has no label.
  const data = [0.1, 0.7, 0.2, 0.7, 4, 3, 2, 1];
  const first = ['0.699999988:1:dog', '0.699999988:3', '0.200000003:2:bird'];
  const second = ['4.000000000:0:cat', '3.000000000:1:dog', '2.000000000:2:bird'];
  const request = (outputs: unknown[], extra = {}) => ({ inputs: [{ name: 'X', datatype: 'FP32', shape: [2, 4], data }], outputs, ...extra });

  it('answers HTTP JSON with "value:index:label" BYTES, k per batch entry', async () => {
    const res = await fetch(url('/v2/models/classes/infer'), { method: 'POST', body: JSON.stringify(request([{ name: 'Y', parameters: { classification: 3 } }])) });
    const body = (await res.json()) as { outputs: Array<{ name: string; datatype: string; shape: number[]; data: string[] }> };
    expect(body.outputs[0]).toEqual({ name: 'Y', datatype: 'BYTES', shape: [2, 3], data: [...first, ...second] });
  });

  it('answers HTTP binary with the same strings', async () => {
    const res = await fetch(url('/v2/models/classes/infer'), { method: 'POST', body: JSON.stringify(request([{ name: 'Y', parameters: { classification: 3, binary_data: true } }])) });
    const buf = Buffer.from(await res.arrayBuffer());
    const headerLength = Number(res.headers.get('inference-header-content-length'));
    const strings: string[] = [];
    for (let at = headerLength; at < buf.byteLength;) {
      const n = buf.readUInt32LE(at);
      strings.push(buf.subarray(at + 4, at + 4 + n).toString('utf8'));
      at += 4 + n;
    }
    expect(strings).toEqual([...first, ...second]);
  });

  it('answers gRPC classification (and the older class_count) the same way', async () => {
    const client = grpcClient(`127.0.0.1:${ports.grpc}`);
    try {
      for (const key of ['classification', 'class_count']) {
        const reply = (await call(client, 'ModelInfer', {
          model_name: 'classes',
          inputs: [{ name: 'X', datatype: 'FP32', shape: [2, 4], contents: { fp32_contents: data } }],
          outputs: [{ name: 'Y', parameters: { [key]: { int64_param: 2 } } }],
        })) as { outputs: Array<{ datatype: string; shape: Array<string | number> }>; raw_output_contents: Buffer[] };
        expect(reply.outputs[0]!.datatype).toBe('BYTES');
        expect(reply.outputs[0]!.shape.map(Number)).toEqual([2, 2]);
        const raw = Buffer.from(reply.raw_output_contents[0]!);
        const strings: string[] = [];
        for (let at = 0; at < raw.byteLength;) {
          const n = raw.readUInt32LE(at);
          strings.push(raw.subarray(at + 4, at + 4 + n).toString('utf8'));
          at += 4 + n;
        }
        expect(strings).toEqual([...first.slice(0, 2), ...second.slice(0, 2)]);
      }
    } finally {
      client.close();
    }
  });

  it('refuses a k that is not a positive integer', async () => {
    const res = await fetch(url('/v2/models/classes/infer'), { method: 'POST', body: JSON.stringify(request([{ name: 'Y', parameters: { classification: 0 } }])) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/parameter 'classification' of output 'Y' must be a positive integer, got 0/);
  });
});

describe('gebe serve on the ensemble example repository (fixtures/ensemble_repository, docs/ensembles.md)', () => {
  it('loads the ensemble and its three steps READY and answers it', async () => {
    const out = memoryIO();
    const example = path.resolve(import.meta.dirname, '..', '..', '..', 'fixtures', 'ensemble_repository');
    const served = await startServe(example, out);
    try {
      const rows = out.out().split('\n').filter((l) => /^(digits_pipeline|preprocess|mnist|postprocess) /.test(l));
      expect(rows).toHaveLength(4);
      for (const row of rows) expect(row).toMatch(/ 1 +READY /);
      expect(rows.find((r) => r.startsWith('digits_pipeline'))).toMatch(/READY +ensemble/);
      const res = await fetch(`http://127.0.0.1:${served.ports.http}/v2/models/digits_pipeline/infer`, {
        method: 'POST', body: JSON.stringify({ inputs: [{ name: 'raw', datatype: 'UINT8', shape: [1, 1, 28, 28], data: new Array(784).fill(0) }], outputs: [{ name: 'digit' }] }),
      });
      const body = (await res.json()) as { outputs: Array<{ name: string; shape: number[] }> };
      expect(body.outputs.map((o) => [o.name, o.shape])).toEqual([['digit', [1, 1]]]);
    } finally {
      await served.stop();
    }
  });
});

describe('rate_limiter under --rate-limit execution_count', () => {
  const group = { instance_group: [{ count: 1, rate_limiter: { resources: [{ name: 'R', count: 1 }] } }] };
  it('is heeded for the executor\'s and Python models, named as ignored for an ensemble, and unremarked while the limiter is off', () => {
    expect(serveSupport({ name: 'm', backend: 'ge', ...group }, { rateLimiting: true }).ignored).toEqual([]);
    expect(serveSupport({ name: 'p', backend: 'python', ...group }, { rateLimiting: true }).ignored).toEqual([]);
    expect(serveSupport({ name: 'e', platform: 'ensemble', ...group }, { rateLimiting: true }).ignored).toEqual(['instance_group[0].rate_limiter']);
    expect(serveSupport({ name: 'e', platform: 'ensemble', ...group }).ignored).toEqual([]);
  });
});
