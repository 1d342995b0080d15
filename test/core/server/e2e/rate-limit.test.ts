/**
 * Triton's rate limiter (--rate-limit execution_count) on a real server: two models whose one
 * instance each needs the server's one copy of R never compute at the same time (their traces'
 * COMPUTE_START..COMPUTE_END never overlap), where without the limiter they do; an instance that
 * needs more than --rate-limit-resource gives is refused at load, naming the resource.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../../src/core/executor/index.js';
import { createRateLimiter, type RateLimitResource } from '../../../../src/core/executor/rate-limiter.js';
import { DiskModelSource } from '../../../../src/core/server/disk-source.js';
import { silentLogger } from '../../../../src/core/server/logger.js';
import { ModelManager } from '../../../../src/core/server/model-manager.js';
import { GebeServer } from '../../../../src/core/server/server.js';
import { binaryBody, postBinary } from '../helpers/http-client.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { mnistRepository, perRequestModelPy, writeModel } from './helpers.js';

const python = pythonForTests();

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-rate-limit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** y = x·W1·W2·…·W16 over x [batch, 64, 256]: a few ms of compute a request, so runs that overlap show it. */
function slowModel(): Uint8Array {
  const g = new OnnxGraphBuilder('slow', 13);
  g.input('x', 'FLOAT', ['batch', 64, 256]);
  let x = 'x';
  for (let i = 0; i < 16; i++) {
    g.initializer(`w${i}`, 'FLOAT', [256, 256], randomValues(256 * 256, i + 1, 1 / 16));
    g.node('MatMul', [x, `w${i}`], [`h${i}`]);
    x = `h${i}`;
  }
  g.node('Identity', [x], ['y']);
  g.output('y', 'FLOAT', ['batch', 64, 256]);
  return g.encode();
}
const model = slowModel();
const config = (name: string, needs: number) => `name: "${name}"
backend: "ge"
max_batch_size: 4
input [{ name: "x" data_type: TYPE_FP32 dims: [64, 256] }]
output [{ name: "y" data_type: TYPE_FP32 dims: [64, 256] }]
instance_group [{ count: 1 kind: KIND_CPU rate_limiter { resources [{ name: "R" count: ${needs} }] priority: 1 } }]
`;

/**
 * A server over left and right (R: 1 each) and greedy (R: 2), tracing every request to `file`;
 * with `withPython`, also py, a Python model (R: 1) whose execute() sleeps 20 ms and answers its
 * CLOCK_MONOTONIC start and end (the clock of the traces).
 */
async function start(file: string, limiter?: RateLimitResource[], withPython = false) {
  const repo = mnistRepository({
    left: { config: config('left', 1), model },
    right: { config: config('right', 1), model },
    greedy: { config: config('greedy', 2), model },
  });
  if (withPython) {
    writeModel(repo, 'py', [
      'backend: "python"', 'max_batch_size: 0',
      'input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]', 'output [ { name: "T" data_type: TYPE_INT64 dims: [ 2 ] } ]',
      'instance_group [ { count: 1 kind: KIND_CPU rate_limiter { resources [ { name: "R" count: 1 } ] } } ]',
    ], perRequestModelPy([
      'start = time.monotonic_ns()',
      'time.sleep(0.02)',
      'out.append(pb_utils.InferenceResponse([pb_utils.Tensor("T", np.array([start, time.monotonic_ns()], np.int64))]))',
    ], ['import time']));
  }
  const manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
  if (limiter) manager.rateLimiter = createRateLimiter(limiter);
  await manager.start();
  const server = new GebeServer(manager, {
    host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 8 << 20, enableMetrics: false,
    trace: { file, setting: { timestamps: true, rate: 1, count: -1, logFrequency: 0 } },
  }, silentLogger);
  const ports = await server.listen();
  return {
    manager, http: `http://127.0.0.1:${ports.http}`,
    stop: async () => {
      await server.stop(5000);
      rmSync(repo, { recursive: true, force: true });
    },
  };
}

const image = { name: 'x', datatype: 'FP32', shape: [1, 64, 256] };
const pixels = new Uint8Array(randomValues(64 * 256, 7).buffer);

/** 12 requests to each of left and right, 4 at a time per model, interleaved. */
async function load(http: string): Promise<void> {
  const one = async (model: string) => {
    const { body, headerLength } = binaryBody({ inputs: [{ ...image, parameters: { binary_data_size: pixels.byteLength } }] }, [{ ...image, bytes: pixels }]);
    expect((await postBinary(`${http}/v2/models/${model}/infer`, body, headerLength)).status).toBe(200);
  };
  const worker = async (model: string) => {
    for (let i = 0; i < 3; i++) await one(model);
  };
  await Promise.all(Array.from({ length: 8 }, (_, i) => worker(i % 2 === 0 ? 'left' : 'right')));
}

/** Each traced request's compute interval, by model. */
function computeIntervals(file: string): Map<string, Array<[number, number]>> {
  const entries = JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: number; model_name?: string; timestamps?: Array<{ name: string; ns: number }> }>;
  const models = new Map<number, string>();
  const stamps = new Map<number, Map<string, number>>();
  for (const e of entries) {
    if (e.model_name) models.set(e.id, e.model_name);
    for (const s of e.timestamps ?? []) {
      const m = stamps.get(e.id) ?? new Map<string, number>();
      m.set(s.name, s.ns);
      stamps.set(e.id, m);
    }
  }
  const out = new Map<string, Array<[number, number]>>();
  for (const [id, model] of models) {
    const s = stamps.get(id)!;
    out.set(model, [...(out.get(model) ?? []), [s.get('COMPUTE_START')!, s.get('COMPUTE_END')!]]);
  }
  return out;
}

function overlaps(a: Array<[number, number]>, b: Array<[number, number]>): number {
  return a.reduce((n, [s1, e1]) => n + b.filter(([s2, e2]) => s1 < e2 && s2 < e1).length, 0);
}

describe('--rate-limit execution_count', () => {
  it('runs two models that share the one copy of a resource one at a time, and refuses a need above the given count', async () => {
    const file = path.join(dir, 'limited.json');
    const server = await start(file, [{ name: 'R', count: 1, device: -1 }]);
    try {
      const greedy = server.manager.statuses().find((s) => s.name === 'greedy')!;
      expect(greedy.state).toBe('UNAVAILABLE');
      expect(greedy.reason).toContain('Resource count for "R" is limited to 1 which will prevent scheduling of one or more model instances, the minimum required count is 2');
      expect(server.manager.rateLimiter!.capacities()).toEqual([['R@0', 1]]);
      await load(server.http);
    } finally {
      await server.stop();
    }
    const intervals = computeIntervals(file);
    expect([intervals.get('left')?.length, intervals.get('right')?.length]).toEqual([12, 12]);
    expect(overlaps(intervals.get('left')!, intervals.get('right')!)).toBe(0);
  });

  it('without it, the same load computes on both models at once', async () => {
    const file = path.join(dir, 'free.json');
    const server = await start(file);
    try {
      // Without the limiter greedy loads too: nothing counts its need.
      expect(server.manager.statuses().every((s) => s.state === 'READY')).toBe(true);
      await load(server.http);
    } finally {
      await server.stop();
    }
    const intervals = computeIntervals(file);
    expect(overlaps(intervals.get('left')!, intervals.get('right')!)).toBeGreaterThan(0);
  });

  it.skipIf(!python.available)('holds a Python model\'s execute() as it holds the executor\'s instances', async () => {
    const runs = async (limiter?: RateLimitResource[]) => {
      const file = path.join(dir, `py-${limiter ? 'limited' : 'free'}.json`);
      const server = await start(file, limiter, true);
      const py: Array<[number, number]> = [];
      try {
        const once = async () => {
          const res = await fetch(`${server.http}/v2/models/py/infer`, { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [0] }] }) });
          const body = (await res.json()) as { outputs: Array<{ data: number[] }> };
          py.push(body.outputs[0]!.data as [number, number]);
        };
        await Promise.all([load(server.http), (async () => { for (let i = 0; i < 6; i++) await once(); })()]);
      } finally {
        await server.stop();
      }
      return overlaps(py, computeIntervals(file).get('left')!);
    };
    expect(await runs([{ name: 'R', count: 1, device: -1 }])).toBe(0);
    expect(await runs()).toBeGreaterThan(0);
  });

  it('takes the largest need as the count when the flag gives none', async () => {
    const server = await start(path.join(dir, 'default.json'), []);
    try {
      expect(server.manager.statuses().every((s) => s.state === 'READY')).toBe(true);
      expect(server.manager.rateLimiter!.capacities()).toEqual([['R@0', 2]]);
    } finally {
      await server.stop();
    }
  });
});
