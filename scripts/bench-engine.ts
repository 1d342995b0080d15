/**
 * `npm run bench:engine`: the cpu engine side by side with onnxruntime-node, in one run, on the
 * same generated models and inputs, at the same thread counts (1 and all cores). Prints p50
 * latency per row with the gebe/ORT ratio (gebe's synchronous run against ORT's, which also runs
 * on the JS thread) and gebe's Promise-based run beside it, and the peak RSS of a fresh process after loading
 * each model in each engine.
 *
 *   GEBE_BENCH_ITERS=n   least timed iterations per row and engine (default 20; warm-up is 3)
 *   GEBE_BENCH_SECONDS=s time per row past which no more iterations start (default 1.5)
 *   GEBE_BENCH_ONLY=re   only rows whose name matches the regular expression
 *   GEBE_BENCH_SETTLE_MS, GEBE_BENCH_WARM_MS  idle time and untimed warm-up before each block (50, 60)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as OrtModule from 'onnxruntime-node';
import { CpuSession, cpuGemmIsa, type CpuTensor } from '../test/helpers/cpu-session.js';
import { randomValues } from '../test/helpers/onnx-builder.js';
import { toHalf } from '../test/helpers/half.js';
import { bertEncoder, logMelSpectrogram, mnistCnn, mobilenetV2, resnet18 } from '../test/helpers/onnx-models.js';
import { ortTypes } from '../test/helpers/ort-types.js';
import { qdqCnn, qdqResnet18 } from '../test/helpers/qdq-models.js';
import { timeBlocks } from './lib/alternate-blocks.js';

interface Row {
  name: string;
  model: string;
  inputs: CpuTensor[];
}

// Loaded on first use so the RSS child measuring gebe never maps ONNX Runtime's libraries.
let ortModule: typeof OrtModule | undefined;
async function loadOrt(): Promise<typeof OrtModule> {
  ortModule ??= await import('onnxruntime-node');
  return ortModule;
}


/**
 * onnxruntime-node runs a session on the JS thread (inside a setImmediate), so the like-for-like
 * gebe figure is runSync; gebe's Promise-based run (off the JS thread, what serve and perf use) is
 * printed beside it, and the difference is the cost of the thread hop.
 */
async function latency(row: Row, threads: number, iters: number, budgetMs: number): Promise<{ gebe: number; ort: number; gebeAsync: number }> {
  const ort = await loadOrt();
  const gebe = CpuSession.load(row.model, { intraOpThreads: threads });
  const ortSession = await ort.InferenceSession.create(row.model, { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const feeds: Record<string, OrtModule.Tensor> = {};
  for (const t of row.inputs) feeds[t.name] = new ort.Tensor(ortTypes[t.datatype as keyof typeof ortTypes] as 'float32', t.data as Float32Array, t.dims);
  const [g, o, a] = await timeBlocks([() => gebe.runSync(row.inputs), () => ortSession.run(feeds), () => gebe.run(row.inputs)], iters, budgetMs, threads > 1);
  gebe.close();
  await ortSession.release();
  return { gebe: g, ort: o, gebeAsync: a };
}

/** Child-process mode: load one model in one engine, run once, print peak RSS in bytes. */
async function rssChild(engine: string, model: string, inputsFile: string): Promise<void> {
  const { default: fs } = await import('node:fs');
  const inputs = JSON.parse(fs.readFileSync(inputsFile, 'utf8')) as Array<{ name: string; datatype: keyof typeof ortTypes; dims: number[]; seed: number; vocab?: number }>;
  const tensors: CpuTensor[] = inputs.map(makeInput);
  if (engine === 'gebe') {
    const s = CpuSession.load(model, { intraOpThreads: 1 });
    await s.run(tensors);
  } else {
    const ort = await loadOrt();
    const s = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
    const feeds: Record<string, OrtModule.Tensor> = {};
    for (const t of tensors) feeds[t.name] = new ort.Tensor(ortTypes[t.datatype] as 'float32', t.data as Float32Array, t.dims);
    await s.run(feeds);
  }
  // VmHWM belongs to this process image: getrusage's maxRSS would include the peak of the
  // benchmark process this child was forked from.
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
  process.stdout.write(String(hwm ? Number(hwm[1]) * 1024 : process.resourceUsage().maxRSS * 1024));
}

/** INT64 inputs are token ids below `vocab` (default 1000, the generated BERT's). */
function makeInput(spec: { name: string; datatype: keyof typeof ortTypes; dims: number[]; seed: number; vocab?: number }): CpuTensor {
  const count = spec.dims.reduce((a, b) => a * b, 1);
  if (spec.datatype === 'INT64') {
    const ids = randomValues(count, spec.seed, 1);
    const top = (spec.vocab ?? 1000) - 1;
    return { name: spec.name, datatype: 'INT64', dims: spec.dims, data: BigInt64Array.from(ids, (v) => BigInt(Math.floor(Math.abs(v) * top))) };
  }
  if (spec.datatype === 'FP16') return { name: spec.name, datatype: 'FP16', dims: spec.dims, data: toHalf(randomValues(count, spec.seed, 1)) };
  if (spec.name === 'attention_mask') return { name: spec.name, datatype: 'FP32', dims: spec.dims, data: new Float32Array(count).fill(1) };
  return { name: spec.name, datatype: 'FP32', dims: spec.dims, data: randomValues(count, spec.seed, 1) };
}

/** Width of the first column: the longest row name and a gap. */
const NAME_WIDTH = 31;

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/**
 * What batching buys each engine on the MNIST CNN: time per row at batch 1 over time per row at
 * batch 16 (from the rows above). Above 1: a batch-16 row costs less than a batch-1 row; the last
 * column is gebe's gain over ORT's (goal: at least 1).
 */
function printBatchGain(measured: Map<string, { gebe: number; ort: number }>, threadCounts: number[]): void {
  const lines: string[] = [];
  for (const threads of threadCounts) {
    const b1 = measured.get(`MNIST CNN b1@${threads}`), b16 = measured.get(`MNIST CNN b16@${threads}`);
    if (!b1 || !b16) continue;
    const gebe = b1.gebe / (b16.gebe / 16), ort = b1.ort / (b16.ort / 16);
    lines.push(`${pad('MNIST CNN b16 vs b1', NAME_WIDTH)}${pad(String(threads), 9)}${pad(gebe.toFixed(2), 11)}${pad(ort.toFixed(2), 11)}${(gebe / ort).toFixed(2)}`);
  }
  if (lines.length === 0) return;
  console.log('');
  console.log(`${pad('per-row gain of b16', NAME_WIDTH)}${pad('threads', 9)}${pad('gebe', 11)}${pad('ORT', 11)}gebe/ORT (ms per row at b1 / at b16)`);
  for (const line of lines) console.log(line);
}

/**
 * Child-process mode: build every model in JS and write it into `dir`; prints the paths as JSON.
 * Building them (ResNet-18 four times over, with calibration runs) leaves hundreds of MB of garbage,
 * which V8's concurrent GC and unmapper threads would otherwise clear on the two cores while the
 * first rows are timed: the 2-thread MNIST cells came out up to 2.5× slower in such runs.
 */
async function writeModels(dir: string): Promise<void> {
  const write = (name: string, bytes: Uint8Array) => {
    const file = path.join(dir, name);
    writeFileSync(file, bytes);
    return file;
  };
  const models = {
    mnist: write('mnist.onnx', mnistCnn()),
    resnet18: write('resnet18.onnx', resnet18()),
    mobilenetv2: write('mobilenetv2.onnx', mobilenetV2()),
    bert: write('bert.onnx', bertEncoder({ layers: 4, hidden: 256, heads: 4, vocab: 1000 })),
    // INT8 activations (zero point 0), FP32 bias, Relus that clip: ORT runs FP32 Conv between its
    // DQ and Q nodes, gebe the fused integer convolution with the graph's FP32 epilogue.
    qdq: write('qdq_cnn.onnx', qdqCnn()),
    // quantize_static's defaults: UINT8 activations, calibrated Relu ranges (zero point 0, so the
    // Relus are redundant), INT32 bias: both engines fuse every Conv into an integer QLinearConv.
    qdqU8: write('qdq_cnn_u8.onnx', qdqCnn({ activation: 'UINT8', int32Bias: true, reluRange: true })),
    // model.half() of the ResNet-18 (BatchNormalization folded, every tensor FP16).
    resnet18Fp16: write('resnet18_fp16.onnx', resnet18({ half: true })),
    // quantize_static's defaults on the BN-folded ResNet-18 (MinMax-calibrated in ONNX Runtime):
    // INT8 activations (onnxruntime 1.30's default), and with activation_type=QUInt8.
    resnet18Qdq: write('resnet18_qdq.onnx', await qdqResnet18()),
    resnet18QdqU8: write('resnet18_qdq_u8.onnx', await qdqResnet18({ activation: 'UINT8' })),
    logMel: write('log_mel.onnx', logMelSpectrogram()),
  };
  process.stdout.write(JSON.stringify(models));
}

async function main(): Promise<void> {
  if (process.argv[2] === '--rss') return rssChild(process.argv[3], process.argv[4], process.argv[5]);
  if (process.argv[2] === '--write-models') return writeModels(process.argv[3]);
  const iters = Number(process.env.GEBE_BENCH_ITERS ?? 20);
  const budgetMs = 1000 * Number(process.env.GEBE_BENCH_SECONDS ?? 1.5);
  const only = process.env.GEBE_BENCH_ONLY ? new RegExp(process.env.GEBE_BENCH_ONLY) : undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-bench-'));
  const self = fileURLToPath(import.meta.url);
  const models = JSON.parse(execFileSync(process.execPath, [self, '--write-models', dir], { encoding: 'utf8', maxBuffer: 1 << 20 })) as Record<string, string>;
  // PyTorch exports (scripts/make-torch-fixtures.py), from the repository root npm runs this in
  // (the compiled script lives under build/bench, away from fixtures/).
  const torch = (name: string) => path.resolve('fixtures', 'models', 'torch', `${name}.onnx`);
  const specs: Array<{ name: string; model: string; inputs: Array<{ name: string; datatype: keyof typeof ortTypes; dims: number[]; seed: number; vocab?: number }> }> = [
    { name: 'MNIST CNN b1', model: models.mnist, inputs: [{ name: 'input', datatype: 'FP32', dims: [1, 1, 28, 28], seed: 1 }] },
    { name: 'MNIST CNN b16', model: models.mnist, inputs: [{ name: 'input', datatype: 'FP32', dims: [16, 1, 28, 28], seed: 2 }] },
    { name: 'ResNet-18 224 b1', model: models.resnet18, inputs: [{ name: 'input', datatype: 'FP32', dims: [1, 3, 224, 224], seed: 3 }] },
    { name: 'FP16 ResNet-18 224 b1', model: models.resnet18Fp16, inputs: [{ name: 'input', datatype: 'FP16', dims: [1, 3, 224, 224], seed: 3 }] },
    { name: 'int8 QDQ ResNet-18 224 b1', model: models.resnet18Qdq, inputs: [{ name: 'input', datatype: 'FP32', dims: [1, 3, 224, 224], seed: 3 }] },
    { name: 'int8 QDQ ResNet-18 u8 224 b1', model: models.resnet18QdqU8, inputs: [{ name: 'input', datatype: 'FP32', dims: [1, 3, 224, 224], seed: 3 }] },
    { name: 'MobileNetV2 224 b1', model: models.mobilenetv2, inputs: [{ name: 'input', datatype: 'FP32', dims: [1, 3, 224, 224], seed: 4 }] },
    {
      name: 'BERT enc s128 b1', model: models.bert, inputs: [
        { name: 'input_ids', datatype: 'INT64', dims: [1, 128], seed: 5 },
        { name: 'attention_mask', datatype: 'FP32', dims: [1, 128], seed: 6 },
      ],
    },
    { name: 'LSTM+biGRU s10 b2', model: torch('lstm_gru'), inputs: [{ name: 'x', datatype: 'FP32', dims: [10, 2, 16], seed: 7 }] },
    { name: 'FP16 CNN 32 b2', model: torch('cnn_fp16'), inputs: [{ name: 'x', datatype: 'FP16', dims: [2, 3, 32, 32], seed: 8 }] },
    { name: 'int8 QDQ CNN 56 b1', model: models.qdq, inputs: [{ name: 'input', datatype: 'FP32', dims: [1, 3, 56, 56], seed: 9 }] },
    { name: 'int8 QDQ CNN u8 56 b1', model: models.qdqU8, inputs: [{ name: 'input', datatype: 'FP32', dims: [1, 3, 56, 56], seed: 9 }] },
    { name: 'TransformerEnc s32', model: torch('transformer_encoder'), inputs: [{ name: 'x', datatype: 'FP32', dims: [1, 32, 64], seed: 10 }] },
    // Exports from torch.onnx.export's default (dynamo) exporter: EfficientNet blocks (5×5
    // depthwise, squeeze-and-excitation, SiLU), a GPT-2-style decoder (tanh Gelu), MaxViT-style
    // window attention through Einsum.
    { name: 'EfficientNet blocks 32 b1', model: torch('efficient_mini_dynamo'), inputs: [{ name: 'x', datatype: 'FP32', dims: [1, 3, 32, 32], seed: 13 }] },
    { name: 'GPT-2 style s16 b2', model: torch('gpt_mini_dynamo'), inputs: [{ name: 'x', datatype: 'INT64', dims: [2, 16], seed: 14, vocab: 100 }] },
    { name: 'Einsum window attention', model: torch('window_attention_dynamo'), inputs: [{ name: 'x', datatype: 'FP32', dims: [1, 4, 16, 32], seed: 15 }] },
    { name: 'Conv3d net 8³ b1', model: torch('conv3d'), inputs: [{ name: 'x', datatype: 'FP32', dims: [1, 1, 8, 8, 8], seed: 11 }] },
    { name: 'log-mel 30 s 16 kHz b1', model: models.logMel, inputs: [{ name: 'audio', datatype: 'FP32', dims: [1, 480000], seed: 12 }] },
  ];
  const ort = await loadOrt();
  const cores = os.availableParallelism();
  const threadCounts = cores > 1 ? [1, cores] : [1];
  console.log(`gebe cpu engine vs onnxruntime-node ${ort.env.versions.common}: kernels ${cpuGemmIsa()}, ${cores} cores, p50 of >= ${iters} runs per row (blocks of 8 calls alternate between the engines; rows get ${budgetMs / 1000} s)`);
  console.log('gebe ms: runSync on the JS thread, as onnxruntime-node runs; gebe run(): the Promise API off the JS thread');
  console.log(`${pad('model', NAME_WIDTH)}${pad('threads', 9)}${pad('gebe ms', 11)}${pad('ORT ms', 11)}${pad('gebe/ORT', 11)}${pad('gebe run() ms', 15)}run()/ORT`);
  const measured = new Map<string, { gebe: number; ort: number }>();
  for (const spec of specs) {
    if (only && !only.test(spec.name)) continue;
    const row: Row = { name: spec.name, model: spec.model, inputs: spec.inputs.map(makeInput) };
    for (const threads of threadCounts) {
      const r = await latency(row, threads, iters, budgetMs);
      measured.set(`${spec.name}@${threads}`, r);
      console.log(
        `${pad(spec.name, NAME_WIDTH)}${pad(String(threads), 9)}${pad(r.gebe.toFixed(2), 11)}${pad(r.ort.toFixed(2), 11)}${pad((r.gebe / r.ort).toFixed(2), 11)}` +
          `${pad(r.gebeAsync.toFixed(2), 15)}${(r.gebeAsync / r.ort).toFixed(2)}`,
      );
    }
  }
  printBatchGain(measured, threadCounts);
  console.log('');
  console.log(`${pad('peak RSS after load', NAME_WIDTH)}${pad('', 9)}${pad('gebe MiB', 11)}${pad('ORT MiB', 11)}gebe/ORT`);
  const seen = new Set<string>();
  for (const spec of specs) {
    if (only && !only.test(spec.name)) continue;
    if (seen.has(spec.model)) continue;
    seen.add(spec.model);
    const inputsFile = path.join(dir, `${path.basename(spec.model)}.inputs.json`);
    writeFileSync(inputsFile, JSON.stringify(spec.inputs));
    const rss = (engine: string) => Number(execFileSync(process.execPath, [self, '--rss', engine, spec.model, inputsFile], { encoding: 'utf8' })) / 2 ** 20;
    const g = rss('gebe'), o = rss('ort');
    console.log(`${pad(spec.name.replace(/ b\d+$/, ''), NAME_WIDTH)}${pad('', 9)}${pad(g.toFixed(1), 11)}${pad(o.toFixed(1), 11)}${(g / o).toFixed(2)}`);
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
