/**
 * `npm run bench:ops`: single operators through the cpu engine and onnxruntime-node side by side,
 * at 1 thread and at all cores, at the sizes the models that use them run them: the p50 of each
 * in alternating blocks (lib/alternate-blocks.ts) and the ratio. Each model is Relu → the operator
 * → ReduceSum of each output, so the operator reads and writes intermediate values as it does in
 * a network (a graph output would be allocated and faulted in on every run); both engines run the
 * same two extra nodes, each a single pass that both vectorise. A ratio far above 1 is a kernel worth reading; the per-node times come
 * from GEBE_CPU_PROFILE=1 and ONNX Runtime's profiler.
 *
 *   GEBE_BENCH_SECONDS=s  time per row past which no more blocks start (default 1)
 *   GEBE_BENCH_ONLY=re    only rows whose name matches the regular expression
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { CpuSession, cpuGemmIsa, type CpuTensor } from '../test/helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues, type AttributeValue } from '../test/helpers/onnx-builder.js';
import { timeBlocks } from './lib/alternate-blocks.js';

interface OpRow {
  name: string;
  op: string;
  input: number[];
  attributes?: Record<string, AttributeValue>;
  /** Further inputs of the operator, as initializers: [name, dims, values]; '' leaves a slot empty. */
  constants?: Array<[string, number[], number[]] | [string, number[], number[], 'INT64']>;
  outputs?: number;
  opset?: number;
  /** The node before the operator (default Relu; Abs for Log and Sqrt). */
  before?: string;
}

const map = [1, 64, 56, 56];
const seeded = (n: number, seed: number, scale = 1) => Array.from(randomValues(n, seed, scale));
const rows: OpRow[] = [
  { name: 'LayerNormalization 128x768', op: 'LayerNormalization', input: [128, 768], attributes: { axis: -1 }, constants: [['scale', [768], seeded(768, 1)], ['bias', [768], seeded(768, 2)]] },
  { name: 'BatchNormalization 64x112x112', op: 'BatchNormalization', input: [1, 64, 112, 112], constants: [['s', [64], seeded(64, 3)], ['b', [64], seeded(64, 4)], ['m', [64], seeded(64, 5)], ['v', [64], seeded(64, 6).map((v) => Math.abs(v) + 0.5)]] },
  { name: 'InstanceNormalization 64x56x56', op: 'InstanceNormalization', input: map, constants: [['s', [64], seeded(64, 7)], ['b', [64], seeded(64, 8)]] },
  { name: 'GroupNormalization 32 of 320x64x64', op: 'GroupNormalization', input: [1, 320, 64, 64], attributes: { num_groups: 32 }, constants: [['s', [320], seeded(320, 9)], ['b', [320], seeded(320, 10)]], opset: 21 },
  { name: 'LRN size 5, 64x56x56', op: 'LRN', input: map, attributes: { size: 5 } },
  { name: 'Resize linear 2x, 64x56x56', op: 'Resize', input: map, attributes: { mode: 'linear' }, constants: [['', [], []], ['scales', [4], [1, 1, 2, 2]]] },
  { name: 'Resize nearest 2x, 64x56x56', op: 'Resize', input: map, attributes: { mode: 'nearest' }, constants: [['', [], []], ['scales', [4], [1, 1, 2, 2]]] },
  { name: 'Pad reflect 3, 64x56x56', op: 'Pad', input: map, attributes: { mode: 'reflect' }, constants: [['pads', [8], [0, 0, 3, 3, 0, 0, 3, 3], 'INT64']] },
  { name: 'Pad constant 1, 64x56x56', op: 'Pad', input: map, constants: [['pads', [8], [0, 0, 1, 1, 0, 0, 1, 1], 'INT64']] },
  { name: 'Tile 2x2, 64x28x28', op: 'Tile', input: [1, 64, 28, 28], constants: [['repeats', [4], [1, 1, 2, 2], 'INT64']] },
  { name: 'SpaceToDepth 2, 64x56x56', op: 'SpaceToDepth', input: map, attributes: { blocksize: 2 } },
  { name: 'DepthToSpace 2, 256x28x28', op: 'DepthToSpace', input: [1, 256, 28, 28], attributes: { blocksize: 2 } },
  { name: 'ReduceMean over C, 64x56x56', op: 'ReduceMean', input: map, attributes: { axes: [1] } },
  { name: 'ReduceMin last axis 256x1024', op: 'ReduceMin', input: [256, 1024], attributes: { axes: [-1] } },
  { name: 'GlobalAveragePool 16x112x112', op: 'GlobalAveragePool', input: [1, 16, 112, 112] },
  { name: 'GlobalMaxPool 16x112x112', op: 'GlobalMaxPool', input: [1, 16, 112, 112] },
  { name: 'Softmax over 21 classes of 256x256', op: 'Softmax', input: [1, 21, 256, 256], attributes: { axis: 1 } },
  { name: 'Softmax last axis 8x50257', op: 'Softmax', input: [8, 50257], attributes: { axis: -1 } },
  { name: 'LogSoftmax last axis 8x50257', op: 'LogSoftmax', input: [8, 50257], attributes: { axis: -1 } },
  { name: 'CumSum 64x4096', op: 'CumSum', input: [64, 4096], constants: [['axis', [], [1], 'INT64']] },
  { name: 'Erf 128x3072', op: 'Erf', input: [128, 3072] },
  { name: 'Sigmoid 128x3072', op: 'Sigmoid', input: [128, 3072] },
  { name: 'Tanh 128x3072', op: 'Tanh', input: [128, 3072] },
  { name: 'HardSwish 64x56x56', op: 'HardSwish', input: map },
  { name: 'LeakyRelu 64x56x56', op: 'LeakyRelu', input: map, attributes: { alpha: 0.1 } },
  { name: 'PRelu per channel 64x56x56', op: 'PRelu', input: map, constants: [['slope', [64, 1, 1], seeded(64, 11, 0.5)]] },
  { name: 'Elu 64x56x56', op: 'Elu', input: map },
  { name: 'Softplus 64x56x56', op: 'Softplus', input: map },
  { name: 'Mish 64x56x56', op: 'Mish', input: map, opset: 18 },
  { name: 'Exp 64x56x56', op: 'Exp', input: map },
  { name: 'Log 64x56x56', op: 'Log', input: map, before: 'Abs' },
  { name: 'Sqrt 64x56x56', op: 'Sqrt', input: map, before: 'Abs' },
  { name: 'Pow by 3, 64x56x56', op: 'Pow', input: map, constants: [['e', [], [3]]] },
  { name: 'Div by a channel vector 64x56x56', op: 'Div', input: map, constants: [['d', [1, 64, 1, 1], seeded(64, 12).map((v) => Math.abs(v) + 0.5)]] },
  { name: 'LpNormalization p2 1024x512', op: 'LpNormalization', input: [1024, 512], attributes: { axis: -1, p: 2 } },
  { name: 'MatMul 12x128x64 by 12x64x128', op: 'MatMul', input: [12, 128, 64], constants: [['w', [12, 64, 128], seeded(12 * 64 * 128, 13, 0.1)]] },
  { name: 'ConvTranspose 2x2 s2, 64->32 at 28x28', op: 'ConvTranspose', input: [1, 64, 28, 28], attributes: { kernel_shape: [2, 2], strides: [2, 2] }, constants: [['w', [64, 32, 2, 2], seeded(64 * 32 * 4, 14, 0.1)]] },
  { name: 'depthwise Conv 3x3, 96x56x56', op: 'Conv', input: [1, 96, 56, 56], attributes: { kernel_shape: [3, 3], pads: [1, 1, 1, 1], group: 96 }, constants: [['w', [96, 1, 3, 3], seeded(96 * 9, 15, 0.1)]] },
  { name: 'MaxPool 3x3 s2, 64x112x112', op: 'MaxPool', input: [1, 64, 112, 112], attributes: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] } },
  { name: 'AveragePool 2x2 s2, 128x56x56', op: 'AveragePool', input: [1, 128, 56, 56], attributes: { kernel_shape: [2, 2], strides: [2, 2] } },
  { name: 'Concat over C, 2 x 64x56x56', op: 'Concat', input: map, attributes: { axis: 1 }, constants: [['other', map, seeded(64 * 56 * 56, 16)]] },
  { name: 'Split over C in 2, 64x56x56', op: 'Split', input: map, attributes: { axis: 1, num_outputs: 2 }, outputs: 2, opset: 18 },
  { name: 'Expand 64x1x56 to 64x56x56', op: 'Expand', input: [1, 64, 1, 56], constants: [['shape', [4], map, 'INT64']] },
  { name: 'Attention causal, 8 heads 128x64', op: 'Attention', input: [1, 8, 128, 64], attributes: { is_causal: 1 }, constants: [['k', [1, 8, 128, 64], seeded(65536, 19)], ['v', [1, 8, 128, 64], seeded(65536, 20)]], opset: 23 },
  { name: 'Attention causal, 8 heads 512x64', op: 'Attention', input: [1, 8, 512, 64], attributes: { is_causal: 1 }, constants: [['k', [1, 8, 512, 64], seeded(262144, 28)], ['v', [1, 8, 512, 64], seeded(262144, 29)]], opset: 23 },
  { name: 'Attention, 12 heads 197x64 (ViT-B/16)', op: 'Attention', input: [1, 12, 197, 64], constants: [['k', [1, 12, 197, 64], seeded(12 * 197 * 64, 32)], ['v', [1, 12, 197, 64], seeded(12 * 197 * 64, 33)]], opset: 23 },
  { name: 'Attention decode, 32 heads 1 over 511+1', op: 'Attention', input: [1, 32, 1, 128], outputs: 3, constants: [['k', [1, 32, 1, 128], seeded(4096, 24)], ['v', [1, 32, 1, 128], seeded(4096, 25)], ['', [], []], ['pk', [1, 32, 511, 128], seeded(32 * 511 * 128, 26)], ['pv', [1, 32, 511, 128], seeded(32 * 511 * 128, 27)]], opset: 23 },
  { name: 'DeformConv 3x3, 64->64 at 56x56', op: 'DeformConv', input: map, attributes: { pads: [1, 1, 1, 1] }, constants: [['w', [64, 64, 3, 3], seeded(36864, 30, 0.05)], ['offset', [1, 18, 56, 56], seeded(18 * 56 * 56, 31, 2)]], opset: 22 },
  { name: 'RMSNormalization 128x768', op: 'RMSNormalization', input: [128, 768], constants: [['scale', [768], seeded(768, 21)]], opset: 23 },
  { name: 'RotaryEmbedding 8 heads 128x64', op: 'RotaryEmbedding', input: [1, 8, 128, 64], constants: [['cos', [128, 32], seeded(4096, 22)], ['sin', [128, 32], seeded(4096, 23)], ['pos', [1, 128], Array.from({ length: 128 }, (_, i) => i), 'INT64']], opset: 23 },
  { name: 'Gemm 2048->1000', op: 'Gemm', input: [1, 2048], attributes: { transB: 1 }, constants: [['w', [1000, 2048], seeded(2048000, 17, 0.02)], ['b', [1000], seeded(1000, 18)]] },
];

function buildModel(row: OpRow, dir: string, index: number): string {
  const g = new OnnxGraphBuilder(`op_${index}`, row.opset ?? 17).input('x', 'FLOAT', row.input);
  g.node(row.before ?? 'Relu', ['x'], ['a'], {}, 'before');
  const inputs = ['a'];
  for (const [name, dims, values, type] of row.constants ?? []) {
    if (name) g.initializer(name, type ?? 'FLOAT', dims, type === 'INT64' ? values.map(BigInt) : values);
    inputs.push(name);
  }
  const outputs = Array.from({ length: row.outputs ?? 1 }, (_, i) => `o${i}`);
  g.node(row.op, inputs, outputs, row.attributes ?? {}, 'op');
  outputs.forEach((o, i) => g.node('ReduceSum', [o], [`y${i}`], { keepdims: 0 }, `read${i}`).output(`y${i}`, 'FLOAT', undefined));
  const file = path.join(dir, `op${index}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

async function main(): Promise<void> {
  const budgetMs = 1000 * Number(process.env.GEBE_BENCH_SECONDS ?? 1);
  const only = process.env.GEBE_BENCH_ONLY ? new RegExp(process.env.GEBE_BENCH_ONLY) : undefined;
  const cores = os.availableParallelism();
  const threadCounts = cores > 1 ? [1, cores] : [1];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-bench-ops-'));
  console.log(`gebe cpu engine vs onnxruntime-node ${ort.env.versions.common}, single operators: kernels ${cpuGemmIsa()}, ${cores} cores, p50 in alternating blocks`);
  console.log(`${'operator'.padEnd(40)}${'threads'.padEnd(9)}${'gebe ms'.padEnd(11)}${'ORT ms'.padEnd(11)}gebe/ORT`);
  try {
    for (const [index, row] of rows.entries()) {
      if (only && !only.test(row.name)) continue;
      const model = buildModel(row, dir, index);
      const count = row.input.reduce((a, b) => a * b, 1);
      const input: CpuTensor = { name: 'x', datatype: 'FP32', dims: row.input, data: randomValues(count, 100 + index, 2) };
      for (const threads of threadCounts) {
        const gebe = CpuSession.load(model, { intraOpThreads: threads });
        const session = await ort.InferenceSession.create(model, { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
        try {
          const feeds = { x: new ort.Tensor('float32', input.data as Float32Array, row.input) };
          const [g, o] = await timeBlocks([() => gebe.runSync([input]), () => session.run(feeds)], 10, budgetMs, threads > 1);
          console.log(`${row.name.padEnd(40)}${String(threads).padEnd(9)}${g.toFixed(3).padEnd(11)}${o.toFixed(3).padEnd(11)}${(g / o).toFixed(2)}`);
        } finally {
          gebe.close();
          await session.release();
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
