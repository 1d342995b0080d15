/**
 * `npm run bench:executor`: the executor's overhead and batching gains, measured side by side
 * in one run.
 *  1. Scheduler overhead: a one-op model (Relu over [batch, 16]) at concurrency 1, p50 latency
 *     through model.infer() (queue, batcher, instance thread, grouped completion, promise)
 *     minus p50 of runDirect() (test/helpers/run-direct.ts) (the same engine session called on the JS thread).
 *     Target: <= 20 µs added.
 *  2. MNIST CNN (templates/mnist) in process at concurrency 16, batch-1 requests: dynamic
 *     batching (preferred 4/8/16, delay 100 µs) vs none, and the engine's own best batched
 *     throughput (runDirect at batch 1/4/8/16). Targets: >= 2.5x with batching, within 15% of
 *     the engine's best.
 * GEBE_BENCH_PARTS=overhead|mnist runs one part; GEBE_BENCH_SECONDS sets part 2's windows.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel, type ExecutorModel, type InferRequest } from '../src/core/executor/index.js';
import type { ModelConfig } from '../src/core/config/model-config.js';
import { OnnxGraphBuilder } from '../test/helpers/onnx-builder.js';
import { runDirect } from '../test/helpers/run-direct.js';

// The checkout root: the nearest folder above this script with a package.json.
function findRoot(dir: string): string {
  return existsSync(path.join(dir, 'package.json')) || path.dirname(dir) === dir ? dir : findRoot(path.dirname(dir));
}
const root = findRoot(path.dirname(fileURLToPath(import.meta.url)));
const seconds = Number(process.env.GEBE_BENCH_SECONDS ?? 5);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function f32(n: number, seed: number): Uint8Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i += 1) a[i] = ((i * 7919 + seed * 104729) % 1000) / 1000;
  return new Uint8Array(a.buffer);
}

function writeModel(repo: string, name: string, bytes: Uint8Array | string): string {
  const dir = path.join(repo, name);
  mkdirSync(path.join(dir, '1'), { recursive: true });
  if (typeof bytes === 'string') copyFileSync(bytes, path.join(dir, '1', 'model.onnx'));
  else writeFileSync(path.join(dir, '1', 'model.onnx'), bytes);
  return dir;
}

async function overhead(repo: string): Promise<void> {
  const onnx = new OnnxGraphBuilder('relu').input('x', 'FLOAT', ['batch', 16]).output('y', 'FLOAT', ['batch', 16]);
  onnx.node('Relu', ['x'], ['y']);
  const config: ModelConfig = {
    name: 'relu',
    max_batch_size: 8,
    input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [16] }],
    output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [16] }],
  };
  const model = await loadModel(writeModel(repo, 'relu', onnx.encode()), '1', config, { instanceCount: 1, intraOpThreads: 1 });
  const request: InferRequest = { inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 16], data: f32(16, 1) }] };
  const direct: number[] = [];
  const executor: number[] = [];
  for (let i = 0; i < 2000; i += 1) {
    runDirect(model, request);
    await model.infer(request);
  }
  // Alternate blocks so both see the same machine conditions.
  for (let round = 0; round < 10; round += 1) {
    for (let i = 0; i < 2000; i += 1) {
      const t0 = process.hrtime.bigint();
      runDirect(model, request);
      direct.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    for (let i = 0; i < 2000; i += 1) {
      const t0 = process.hrtime.bigint();
      await model.infer(request);
      executor.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }
  direct.sort((a, b) => a - b);
  executor.sort((a, b) => a - b);
  const added = percentile(executor, 50) - percentile(direct, 50);
  console.log('\n1. Scheduler overhead (Relu [1,16], concurrency 1, 20,000 requests each, µs)');
  console.log(`   ${'path'.padEnd(30)}${['p50', 'p90', 'p99'].map((h) => h.padStart(7)).join('  ')}`);
  for (const [label, values] of [['engine directly (runDirect)', direct], ['executor (infer)', executor]] as const) {
    console.log(`   ${label.padEnd(30)}${[50, 90, 99].map((p) => percentile(values, p).toFixed(1).padStart(7)).join('  ')}`);
  }
  console.log(`   added p50: ${added.toFixed(1)} µs (target <= 20 µs: ${added <= 20 ? 'met' : 'NOT met'})`);
  await model.unload();
}

/** infer/s of `concurrency` closed loops over one window (after a short warm-up). */
async function closedLoop(model: ExecutorModel, concurrency: number, request: InferRequest, durationS: number): Promise<number> {
  let done = 0;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      await model.infer(request);
      done += 1;
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  await new Promise((r) => setTimeout(r, 200));
  const start = done;
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, durationS * 1000));
  const count = done - start;
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  stop = true;
  await Promise.all(loops);
  return count / elapsed;
}

/** Rows/s of the engine session called directly with one batch size. */
function direct(model: ExecutorModel, batch: number, durationS: number): number {
  const request: InferRequest = { inputs: [{ name: 'image', datatype: 'FP32', shape: [batch, 1, 28, 28], data: f32(batch * 784, batch) }] };
  for (let i = 0; i < 5; i += 1) runDirect(model, request);
  let rows = 0;
  const t0 = process.hrtime.bigint();
  const end = t0 + BigInt(Math.round(durationS * 1e9));
  while (process.hrtime.bigint() < end) {
    runDirect(model, request);
    rows += batch;
  }
  return rows / (Number(process.hrtime.bigint() - t0) / 1e9);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function mnist(repo: string): Promise<void> {
  const dir = writeModel(repo, 'mnist', path.join(root, 'templates/mnist/1/model.onnx'));
  const base: ModelConfig = {
    name: 'mnist',
    max_batch_size: 16,
    input: [{ name: 'image', data_type: 'TYPE_FP32', dims: [1, 28, 28] }],
    output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [10] }],
  };
  const request: InferRequest = { inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data: f32(784, 3) }] };
  const batched = await loadModel(dir, '1', { ...base, dynamic_batching: { preferred_batch_size: [4, 8, 16], max_queue_delay_microseconds: 100 } }, { instanceCount: 1 });
  const single = await loadModel(dir, '1', base, { instanceCount: 1 });
  // Plans for every batch size exist before measuring (warmup's job in serve).
  for (let b = 1; b <= 16; b += 1) await batched.compile({ image: [b, 1, 28, 28] });
  await single.compile({ image: [1, 1, 28, 28] });
  // The machine is shared: the configurations alternate in short rounds and the medians are compared.
  const rounds = 5;
  const results = { batched: [] as number[], single: [] as number[], direct: new Map<number, number[]>() };
  for (let r = 0; r < rounds; r += 1) {
    results.batched.push(await closedLoop(batched, 16, request, seconds / rounds));
    results.single.push(await closedLoop(single, 16, request, seconds / rounds));
    for (const b of [1, 4, 8, 16]) {
      const list = results.direct.get(b) ?? [];
      list.push(direct(single, b, seconds / rounds / 2));
      results.direct.set(b, list);
    }
  }
  const stats = batched.stats();
  await batched.unload();
  await single.unload();
  const withBatching = median(results.batched);
  const without = median(results.single);
  const best = [...results.direct].map(([batch, rates]) => ({ batch, rate: median(rates) }));
  const top = best.reduce((a, b) => (b.rate > a.rate ? b : a));
  const meanBatch = stats.inference_count / Math.max(1, stats.execution_count);
  console.log(
    `\n2. MNIST CNN in process, 1 instance (${os.availableParallelism()} intra-op threads), concurrency 16, batch-1 requests ` +
      `(medians of ${rounds} alternating rounds, ${seconds} s per configuration)`,
  );
  console.log('   configuration                               infer/s');
  console.log(`   dynamic batching (4/8/16, 100 µs)        ${withBatching.toFixed(0).padStart(10)}   (mean batch ${meanBatch.toFixed(1)})`);
  console.log(`   no dynamic batching                      ${without.toFixed(0).padStart(10)}`);
  for (const b of best) console.log(`   engine directly, batch ${String(b.batch).padEnd(2)}               ${b.rate.toFixed(0).padStart(10)}`);
  const gain = withBatching / without;
  const ofBest = withBatching / top.rate;
  console.log(`   batching gain: ${gain.toFixed(2)}x (target >= 2.5x: ${gain >= 2.5 ? 'met' : 'NOT met'})`);
  console.log(
    `   batched executor vs engine best (batch ${top.batch}): ${(100 * ofBest).toFixed(1)}% (target >= 85%: ${ofBest >= 0.85 ? 'met' : 'NOT met'})`,
  );
}

const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-bench-'));
try {
  console.log(`gebe executor benchmark (node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, ${os.availableParallelism()} cores)`);
  const parts = (process.env.GEBE_BENCH_PARTS ?? 'overhead,mnist').split(',');
  if (parts.includes('overhead')) await overhead(repo);
  if (parts.includes('mnist')) await mnist(repo);
} finally {
  rmSync(repo, { recursive: true, force: true });
}
