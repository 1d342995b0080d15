/**
 * `npm run bench:zoo -- <dir>`: every model `scripts/export-torch-zoo.py <dir>` exported
 * (torchvision and hand-written models through torch.onnx.export's default exporter) through the
 * cpu engine and onnxruntime-node side by side, at 1 thread and at all cores: the p50 of each in
 * alternating blocks (lib/alternate-blocks.ts, as bench:engine times them), the ratio, and the
 * largest output difference relative to the largest reference value. The exports are not part of
 * the repository (about 1.5 GB, and torch to make them); docs/performance.md has a run.
 *
 *   GEBE_BENCH_SECONDS=s  time per row past which no more blocks start (default 2)
 *   GEBE_BENCH_ONLY=re    only models whose name matches the regular expression
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { CpuSession, cpuGemmIsa, type CpuTensor } from '../test/helpers/cpu-session.js';
import { parseNpy } from '../src/core/numpy/npy.js';
import { maxRelativeError } from '../test/helpers/onnx-runtime.js';
import { timeBlocks } from './lib/alternate-blocks.js';

function readInput(file: string, name: string): CpuTensor {
  const npy = parseNpy(readFileSync(file), file);
  const bytes = npy.data.buffer.slice(npy.data.byteOffset, npy.data.byteOffset + npy.data.byteLength);
  if (npy.datatype === 'INT64') return { name, datatype: 'INT64', dims: npy.shape, data: new BigInt64Array(bytes) };
  if (npy.datatype === 'FP32') return { name, datatype: 'FP32', dims: npy.shape, data: new Float32Array(bytes) };
  throw new Error(`${file}: ${npy.datatype} inputs are not handled here (FP32 and INT64 are)`);
}

/** max |a - b| over max |b| (over 1 when b is all zeros): the tests' maxRelativeError with that as its floor. */
function relativeDifference(a: Float32Array, b: Float32Array): number {
  const largest = b.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  return maxRelativeError(a, b, largest > 0 ? largest : 1);
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir || !existsSync(dir)) throw new Error('usage: npm run bench:zoo -- <dir written by scripts/export-torch-zoo.py>');
  const budgetMs = 1000 * Number(process.env.GEBE_BENCH_SECONDS ?? 2);
  const only = process.env.GEBE_BENCH_ONLY ? new RegExp(process.env.GEBE_BENCH_ONLY) : undefined;
  const cores = os.availableParallelism();
  const threadCounts = cores > 1 ? [1, cores] : [1];
  console.log(`gebe cpu engine vs onnxruntime-node ${ort.env.versions.common}: kernels ${cpuGemmIsa()}, ${cores} cores, p50 in alternating blocks`);
  console.log(`${'model'.padEnd(30)}${'threads'.padEnd(9)}${'gebe ms'.padEnd(11)}${'ORT ms'.padEnd(11)}${'gebe/ORT'.padEnd(10)}output difference`);
  for (const name of readdirSync(dir).sort()) {
    const model = path.join(dir, name, 'model.onnx'), inputFile = path.join(dir, name, 'input.npy');
    if (!existsSync(model) || !existsSync(inputFile) || (only && !only.test(name))) continue;
    for (const threads of threadCounts) {
      const gebe = CpuSession.load(model, { intraOpThreads: threads });
      const session = await ort.InferenceSession.create(model, { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
      try {
        const input = readInput(inputFile, gebe.info().inputs[0].name);
        const feeds = { [session.inputNames[0]]: new ort.Tensor(input.datatype === 'INT64' ? 'int64' : 'float32', input.data as Float32Array, input.dims) };
        const [ours] = gebe.runSync([input]);
        const theirs = (await session.run(feeds))[session.outputNames[0]].data as Float32Array;
        const difference = relativeDifference(ours.data as Float32Array, theirs);
        const [g, o] = await timeBlocks([() => gebe.runSync([input]), () => session.run(feeds)], 10, budgetMs, threads > 1);
        console.log(`${name.padEnd(30)}${String(threads).padEnd(9)}${g.toFixed(2).padEnd(11)}${o.toFixed(2).padEnd(11)}${(g / o).toFixed(2).padEnd(10)}${difference.toExponential(1)}`);
      } finally {
        gebe.close();
        await session.release();
      }
    }
  }
}

try {
  await main();
} catch (error) {
  // A wrong directory or an unreadable export is the user's to fix: the message, not a stack.
  console.error(`bench:zoo: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
