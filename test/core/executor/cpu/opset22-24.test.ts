/**
 * Opsets 22 to 24 against ONNX Runtime at 1 and 2 threads: the operators they added that exports
 * write (torch's exporter at opset_version 23 turns scaled_dot_product_attention into Attention and
 * rms_norm into RMSNormalization; RotaryEmbedding and Swish), in the shapes and options those
 * exports and LLM graphs use (3-D and 4-D heads, grouped-query heads, a key/value cache, boolean
 * and float masks, causal masks with and without a cache, padding counts, softcap, every
 * qk_matmul_output mode), TensorScatter (the cache update beside it), and QuantizeLinear/
 * DequantizeLinear's opset-23 attributes. Opset 25's sliding-window Attention, which ONNX Runtime
 * 1.30 does not read, is checked against ONNX's own reference in conformance.test.ts
 * (fixtures/onnx-node). What the engine refuses is refused at load or at run, named.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-opset22-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-opset22-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const count = (dims: number[]) => dims.reduce((a, b) => a * b, 1);
const f32 = (name: string, dims: number[], seed: number, scale = 1): CpuTensor =>
  ({ name, datatype: 'FP32', dims, data: randomValues(count(dims), seed, scale) });
const bool = (name: string, dims: number[], pick: (i: number) => boolean): CpuTensor =>
  ({ name, datatype: 'BOOL', dims, data: Uint8Array.from({ length: count(dims) }, (_, i) => (pick(i) ? 1 : 0)) });
const int64 = (name: string, dims: number[], values: number[]): CpuTensor =>
  ({ name, datatype: 'INT64', dims, data: BigInt64Array.from(values, BigInt) });

/** cos/sin caches of RoPE for `positions` rows of `half` frequencies (base 10000), as LLM exports hold them. */
function ropeCaches(positions: number, half: number): { cos: Float32Array; sin: Float32Array } {
  const cos = new Float32Array(positions * half), sin = new Float32Array(positions * half);
  for (let p = 0; p < positions; p++) {
    for (let i = 0; i < half; i++) {
      const angle = p / 10000 ** (i / half);
      cos[p * half + i] = Math.cos(angle);
      sin[p * half + i] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

/** One Attention node (opset `opset`) over the given inputs, every output it names returned as FLOAT. */
function attention(opset: number, inputs: Array<[string, 'FLOAT' | 'BOOL' | 'INT64', number[]]>, nodeInputs: string[], outputs: string[],
  attributes: Record<string, number | { float: number }> = {}): Uint8Array {
  const b = new OnnxGraphBuilder(`attention${opset}`, opset);
  for (const [name, type, dims] of inputs) b.input(name, type, dims);
  b.node('Attention', nodeInputs, outputs, attributes);
  for (const o of outputs) if (o) b.output(o, 'FLOAT');
  return b.encode();
}

describe.each([1, 2])('opsets 22-24 vs ONNX Runtime (threads=%i)', (threads) => {
  it('opset 22: a model of unchanged operators loads and runs', async () => {
    const model = new OnnxGraphBuilder('op22', 22)
      .input('x', 'FLOAT', [2, 3, 8, 8]).initializer('w', 'FLOAT', [4, 3, 3, 3], randomValues(108, 3, 0.3))
      .node('Conv', ['x', 'w'], ['c'], { pads: [1, 1, 1, 1] }).node('HardSwish', ['c'], ['h']).node('MaxPool', ['h'], ['p'], { kernel_shape: [2, 2], strides: [2, 2] })
      .node('GlobalAveragePool', ['p'], ['g']).node('Elu', ['g'], ['y'])
      .output('y', 'FLOAT').encode();
    await agree(model, [f32('x', [2, 3, 8, 8], 1)], threads);
  });

  it('opset 23: RMSNormalization over the last axis, two axes with a broadcast scale, and a wide row', async () => {
    const model = new OnnxGraphBuilder('rms', 23)
      .input('x', 'FLOAT', [2, 3, 16]).input('wide', 'FLOAT', [3, 1000])
      .initializer('s16', 'FLOAT', [16], randomValues(16, 5, 2)).initializer('s1x16', 'FLOAT', [1, 16], randomValues(16, 6, 2))
      .initializer('s1000', 'FLOAT', [1000], randomValues(1000, 7, 2))
      .node('RMSNormalization', ['x', 's16'], ['last'], { epsilon: { float: 1e-6 } })
      .node('RMSNormalization', ['x', 's1x16'], ['two'], { axis: 1 })
      .node('RMSNormalization', ['wide', 's1000'], ['row'])
      .output('last', 'FLOAT').output('two', 'FLOAT').output('row', 'FLOAT')
      .encode();
    await agree(model, [f32('x', [2, 3, 16], 1, 3), f32('wide', [3, 1000], 2)], threads);
  });

  it('opset 23: RotaryEmbedding in halves and interleaved, partial, 4-D with position ids and 3-D with per-token caches', async () => {
    const { cos, sin } = ropeCaches(32, 8);
    const { cos: cos4, sin: sin4 } = ropeCaches(32, 4);
    const model = new OnnxGraphBuilder('rope', 23)
      .input('x', 'FLOAT', [2, 3, 5, 16]).input('pos', 'INT64', [2, 5]).input('packed', 'FLOAT', [2, 5, 48])
      .input('tcos', 'FLOAT', [2, 5, 8]).input('tsin', 'FLOAT', [2, 5, 8])
      .initializer('cos', 'FLOAT', [32, 8], cos).initializer('sin', 'FLOAT', [32, 8], sin)
      .initializer('cos4', 'FLOAT', [32, 4], cos4).initializer('sin4', 'FLOAT', [32, 4], sin4)
      .node('RotaryEmbedding', ['x', 'cos', 'sin', 'pos'], ['halves'])
      .node('RotaryEmbedding', ['x', 'cos', 'sin', 'pos'], ['pairs'], { interleaved: 1 })
      .node('RotaryEmbedding', ['x', 'cos4', 'sin4', 'pos'], ['partial'], { rotary_embedding_dim: 8 })
      .node('RotaryEmbedding', ['packed', 'tcos', 'tsin'], ['heads3d'], { num_heads: 3 })
      .output('halves', 'FLOAT').output('pairs', 'FLOAT').output('partial', 'FLOAT').output('heads3d', 'FLOAT')
      .encode();
    const pick = [...Array(10).keys()].map((i) => (i * 7) % 32);
    const tcos = Float32Array.from(pick.flatMap((p) => Array.from(cos.subarray(p * 8, p * 8 + 8))));
    const tsin = Float32Array.from(pick.flatMap((p) => Array.from(sin.subarray(p * 8, p * 8 + 8))));
    await agree(model, [f32('x', [2, 3, 5, 16], 1), int64('pos', [2, 5], [0, 1, 2, 3, 4, 9, 10, 11, 30, 31]), f32('packed', [2, 5, 48], 2),
      { name: 'tcos', datatype: 'FP32', dims: [2, 5, 8], data: tcos }, { name: 'tsin', datatype: 'FP32', dims: [2, 5, 8], data: tsin }], threads);
  });

  it('opset 23: Attention, 4-D heads: plain, causal, boolean masks broadcast over batch and heads and per head, a float mask, scale and softcap', async () => {
    const q: [string, 'FLOAT', number[]] = ['q', 'FLOAT', [2, 4, 6, 8]], k: [string, 'FLOAT', number[]] = ['k', 'FLOAT', [2, 4, 7, 8]];
    const v: [string, 'FLOAT', number[]] = ['v', 'FLOAT', [2, 4, 7, 5]];
    const qkv = [f32('q', [2, 4, 6, 8], 1), f32('k', [2, 4, 7, 8], 2), f32('v', [2, 4, 7, 5], 3)];
    await agree(attention(23, [q, k, v], ['q', 'k', 'v'], ['y']), qkv, threads);
    const square = [f32('q', [2, 4, 6, 8], 1), f32('k', [2, 4, 6, 8], 2), f32('v', [2, 4, 6, 5], 3)];
    await agree(attention(23, [q, ['k', 'FLOAT', [2, 4, 6, 8]], ['v', 'FLOAT', [2, 4, 6, 5]]], ['q', 'k', 'v'], ['y'], { is_causal: 1 }), square, threads);
    await agree(attention(23, [q, k, v, ['m', 'BOOL', [6, 7]]], ['q', 'k', 'v', 'm'], ['y'], { scale: { float: 0.3 } }),
      [...qkv, bool('m', [6, 7], (i) => (i * 5) % 3 !== 0)], threads);
    await agree(attention(23, [q, k, v, ['m', 'FLOAT', [2, 1, 6, 7]]], ['q', 'k', 'v', 'm'], ['y'], { softcap: { float: 2 } }),
      [...qkv, f32('m', [2, 1, 6, 7], 4, 2)], threads);
    await agree(attention(23, [q, k, v, ['m', 'BOOL', [4, 6, 7]]], ['q', 'k', 'v', 'm'], ['y']),
      [...qkv, bool('m', [4, 6, 7], (i) => (i * 7) % 5 < 3)], threads);
  });

  it('opset 23: Attention, 3-D grouped-query heads with a cache: present key/value, causal from the cache on, every qk_matmul_output mode', async () => {
    // 8 query heads over 2 key/value heads of size 4, 3 new tokens after 5 cached ones.
    const inputs: Array<[string, 'FLOAT', number[]]> = [['q', 'FLOAT', [2, 3, 32]], ['k', 'FLOAT', [2, 3, 8]], ['v', 'FLOAT', [2, 3, 12]],
      ['pk', 'FLOAT', [2, 2, 5, 4]], ['pv', 'FLOAT', [2, 2, 5, 6]], ['m', 'FLOAT', [3, 8]]];
    const values = [f32('q', [2, 3, 32], 1), f32('k', [2, 3, 8], 2), f32('v', [2, 3, 12], 3), f32('pk', [2, 2, 5, 4], 4), f32('pv', [2, 2, 5, 6], 5),
      f32('m', [3, 8], 6, 0.5)];
    for (const mode of [0, 1, 2, 3]) {
      const model = attention(23, inputs, ['q', 'k', 'v', 'm', 'pk', 'pv'], ['y', 'present_k', 'present_v', 'qk'],
        { q_num_heads: 8, kv_num_heads: 2, is_causal: 1, softcap: { float: 3 }, qk_matmul_output_mode: mode });
      await agree(model, values, threads);
    }
  });

  it('opset 23: Attention over 70 queries (three blocks of rows): causal with a float mask and softcap, and the softmax output', async () => {
    const inputs: Array<[string, 'FLOAT', number[]]> = [['q', 'FLOAT', [1, 2, 70, 8]], ['k', 'FLOAT', [1, 2, 70, 8]], ['v', 'FLOAT', [1, 2, 70, 8]],
      ['m', 'FLOAT', [70, 70]]];
    const values = [f32('q', [1, 2, 70, 8], 1), f32('k', [1, 2, 70, 8], 2), f32('v', [1, 2, 70, 8], 3), f32('m', [70, 70], 4)];
    for (const mode of [0, 3]) {
      await agree(attention(23, inputs, ['q', 'k', 'v', 'm'], ['y', '', '', 'qk'], { is_causal: 1, softcap: { float: 4 }, qk_matmul_output_mode: mode }), values, threads);
    }
    await agree(attention(23, inputs.slice(0, 3), ['q', 'k', 'v'], ['y'], { is_causal: 1 }), values.slice(0, 3), threads);
  });

  it('opset 23: Attention gives a zero row where a boolean mask leaves a query no key', async () => {
    const model = attention(23, [['q', 'FLOAT', [1, 2, 3, 4]], ['k', 'FLOAT', [1, 2, 5, 4]], ['v', 'FLOAT', [1, 2, 5, 4]], ['m', 'BOOL', [3, 5]]],
      ['q', 'k', 'v', 'm'], ['y']);
    const inputs = [f32('q', [1, 2, 3, 4], 1), f32('k', [1, 2, 5, 4], 2), f32('v', [1, 2, 5, 4], 3), bool('m', [3, 5], (i) => i >= 5)];
    const session = loadModel(model, threads);
    try {
      const [y] = await session.run(inputs);
      const data = y.data as Float32Array;
      // Query 0 of each head (elements 0-3 and 12-15) has no key; queries 1 and 2 have all five.
      for (const head of [0, 1]) {
        expect(Array.from(data.subarray(head * 12, head * 12 + 4))).toEqual([0, 0, 0, 0]);
        expect(data.subarray(head * 12 + 4, head * 12 + 12).some((x) => x !== 0)).toBe(true);
      }
    } finally {
      session.close();
    }
  });

  it('opset 24: Attention with nonpad_kv_seqlen (causal from the valid keys), a mask shorter than the keys, and Swish', async () => {
    const inputs: Array<[string, 'FLOAT' | 'INT64' | 'BOOL', number[]]> = [['q', 'FLOAT', [2, 2, 3, 4]], ['k', 'FLOAT', [2, 2, 8, 4]],
      ['v', 'FLOAT', [2, 2, 8, 4]], ['n', 'INT64', [2]]];
    const values = [f32('q', [2, 2, 3, 4], 1), f32('k', [2, 2, 8, 4], 2), f32('v', [2, 2, 8, 4], 3), int64('n', [2], [5, 8])];
    await agree(attention(24, inputs, ['q', 'k', 'v', '', '', '', 'n'], ['y'], { is_causal: 1 }), values, threads);
    await agree(attention(24, inputs, ['q', 'k', 'v', '', '', '', 'n'], ['y']), values, threads);
    // The raw scores (qk_matmul_output mode 0) cover every key, padding included, although the
    // output needs only the valid ones.
    await agree(attention(24, inputs, ['q', 'k', 'v', '', '', '', 'n'], ['y', '', '', 'qk'], { is_causal: 1, qk_matmul_output_mode: 0 }), values, threads);
    // A mask shorter than the keys (opset 24; ONNX Runtime 1.30 refuses it) leaves the keys after
    // it out: the same as a full mask whose last columns are -inf.
    const short = f32('m', [3, 6], 4), full = new Float32Array(3 * 8).fill(-Infinity);
    for (let r = 0; r < 3; r++) full.set((short.data as Float32Array).subarray(r * 6, r * 6 + 6), r * 8);
    const both = new OnnxGraphBuilder('short_mask', 24).input('q', 'FLOAT', [2, 2, 3, 4]).input('k', 'FLOAT', [2, 2, 8, 4])
      .input('v', 'FLOAT', [2, 2, 8, 4]).input('m', 'FLOAT', [3, 6]).input('full', 'FLOAT', [3, 8])
      .node('Attention', ['q', 'k', 'v', 'm'], ['y_short']).node('Attention', ['q', 'k', 'v', 'full'], ['y_full'])
      .output('y_short', 'FLOAT').output('y_full', 'FLOAT').encode();
    const session = loadModel(both, threads);
    try {
      const [yShort, yFull] = await session.run([...values.slice(0, 3), short, { name: 'full', datatype: 'FP32', dims: [3, 8], data: full }]);
      expect(Array.from(yShort.data as Float32Array)).toEqual(Array.from(yFull.data as Float32Array));
    } finally {
      session.close();
    }
    const swish = new OnnxGraphBuilder('swish', 24).input('x', 'FLOAT', [3, 700])
      .node('Swish', ['x'], ['one']).node('Swish', ['x'], ['half'], { alpha: { float: 0.5 } })
      .output('one', 'FLOAT').output('half', 'FLOAT').encode();
    await agree(swish, [f32('x', [3, 700], 5, 8)], threads);
  });

  it('opset 24: TensorScatter into a key/value cache: linear and circular, at write indices or from 0, along the default and another axis', async () => {
    const model = new OnnxGraphBuilder('scatter', 24)
      .input('past', 'FLOAT', [2, 3, 8, 4]).input('upd', 'FLOAT', [2, 3, 3, 4]).input('at', 'INT64', [2])
      .input('past1', 'INT32', [2, 8, 3, 2]).input('upd1', 'INT32', [2, 2, 3, 2])
      .node('TensorScatter', ['past', 'upd', 'at'], ['linear'])
      .node('TensorScatter', ['past', 'upd', 'at'], ['circular'], { mode: 'circular' })
      .node('TensorScatter', ['past', 'upd'], ['from0'])
      .node('TensorScatter', ['past1', 'upd1', 'at'], ['axis1'], { axis: 1, mode: 'circular' })
      .output('linear', 'FLOAT').output('circular', 'FLOAT').output('from0', 'FLOAT').output('axis1', 'INT32')
      .encode();
    const ints = (name: string, dims: number[]): CpuTensor => ({ name, datatype: 'INT32', dims, data: Int32Array.from({ length: count(dims) }, (_, i) => i * 3 - 7) });
    // Batch entry 1 writes its rows 5, 6, 7 (linear), or 5, 6, 7 then (circular, axis 1) 5, 6.
    await agree(model, [f32('past', [2, 3, 8, 4], 1), f32('upd', [2, 3, 3, 4], 2), int64('at', [2], [2, 5]), ints('past1', [2, 8, 3, 2]),
      ints('upd1', [2, 2, 3, 2])], threads, 0);
    const wrap = [f32('past', [2, 3, 8, 4], 1), f32('upd', [2, 3, 3, 4], 2), int64('at', [2], [7, 14]), ints('past1', [2, 8, 3, 2]), ints('upd1', [2, 2, 3, 2])];
    const circular = new OnnxGraphBuilder('scatter_wrap', 24)
      .input('past', 'FLOAT', [2, 3, 8, 4]).input('upd', 'FLOAT', [2, 3, 3, 4]).input('at', 'INT64', [2])
      .node('TensorScatter', ['past', 'upd', 'at'], ['circular'], { mode: 'circular' }).output('circular', 'FLOAT').encode();
    await agree(circular, wrap.slice(0, 3), threads, 0);
    // The largest write index wraps like any other (7 mod 8), without overflowing as index + row.
    const session = loadModel(circular, threads);
    try {
      const [huge] = await session.run([wrap[0], wrap[1], { name: 'at', datatype: 'INT64', dims: [2], data: BigInt64Array.from([7n, 2n ** 63n - 1n]) }]);
      const [seven] = await session.run([wrap[0], wrap[1], int64('at', [2], [7, 7])]);
      expect(Array.from(huge.data as Float32Array)).toEqual(Array.from(seven.data as Float32Array));
    } finally {
      session.close();
    }
  });

  it('opset 23: QuantizeLinear with precision and DequantizeLinear with output_dtype', async () => {
    const model = new OnnxGraphBuilder('q23', 23)
      .input('x', 'FLOAT', [4, 6]).initializer('s', 'FLOAT', [], [0.05]).initializer('z', 'INT8', [], [3])
      .node('QuantizeLinear', ['x', 's', 'z'], ['q'], { precision: 1 })
      .node('DequantizeLinear', ['q', 's', 'z'], ['d'], { output_dtype: 1 })
      .output('q', 'INT8').output('d', 'FLOAT').encode();
    await agree(model, [f32('x', [4, 6], 1, 4)], threads, 0);
  });
});

function loadModel(model: Uint8Array, threads = 1): CpuSession {
  const file = path.join(dir, `m${Math.random().toString(36).slice(2)}.onnx`);
  writeFileSync(file, model);
  return CpuSession.load(file, { intraOpThreads: threads });
}

describe('opsets 22-24: what is refused, named', () => {
  it('refuses opset 26 at load, naming the newest opset it runs', () => {
    const model = new OnnxGraphBuilder('op26', 26).input('x', 'FLOAT', [2]).node('Relu', ['x'], ['y']).output('y', 'FLOAT').encode();
    expect(() => loadModel(model)).toThrow(/opset 26 \(the cpu engine implements opsets 7 to 25; export with opset_version<=25\)/);
  });

  it('refuses a position id outside the caches, a mask that does not broadcast and a 3-D Attention without head counts', async () => {
    const { cos, sin } = ropeCaches(4, 2);
    const rope = new OnnxGraphBuilder('rope_bad', 23).input('x', 'FLOAT', [1, 1, 2, 4]).input('pos', 'INT64', [1, 2])
      .initializer('cos', 'FLOAT', [4, 2], cos).initializer('sin', 'FLOAT', [4, 2], sin)
      .node('RotaryEmbedding', ['x', 'cos', 'sin', 'pos'], ['y']).output('y', 'FLOAT').encode();
    const session = loadModel(rope);
    try {
      await expect(session.run([f32('x', [1, 1, 2, 4], 1), int64('pos', [1, 2], [1, 4])]))
        .rejects.toThrow(/position_ids\[0, 1\] is 4, outside the caches' 4 positions/);
    } finally {
      session.close();
    }
    // Shapes come with the inputs, so these are refused when a request brings them.
    const refused = async (model: Uint8Array, inputs: CpuTensor[], message: RegExp) => {
      const s = loadModel(model);
      try {
        await expect(s.run(inputs)).rejects.toThrow(message);
      } finally {
        s.close();
      }
    };
    const qkv = [f32('q', [1, 2, 3, 4], 1), f32('k', [1, 2, 5, 4], 2), f32('v', [1, 2, 5, 4], 3)];
    await refused(attention(23, [['q', 'FLOAT', [1, 2, 3, 4]], ['k', 'FLOAT', [1, 2, 5, 4]], ['v', 'FLOAT', [1, 2, 5, 4]], ['m', 'FLOAT', [3, 4]]],
      ['q', 'k', 'v', 'm'], ['y']), [...qkv, f32('m', [3, 4], 4)],
    /node 'Attention_0' \(Attention\): attn_mask \[3, 4\] does not broadcast to \[batch, q heads, q sequence, keys\] = \[1, 2, 3, 5\] \(a shorter key dim needs opset 24\)/);
    await refused(attention(23, [['q', 'FLOAT', [1, 3, 8]], ['k', 'FLOAT', [1, 3, 8]], ['v', 'FLOAT', [1, 3, 8]]], ['q', 'k', 'v'], ['y']),
      [f32('q', [1, 3, 8], 1), f32('k', [1, 3, 8], 2), f32('v', [1, 3, 8], 3)], /Q is 3-D \[1, 3, 8\], so the q_num_heads attribute must give its head count/);
    await refused(attention(23, [['q', 'FLOAT', [1, 6, 3, 4]], ['k', 'FLOAT', [1, 4, 5, 4]], ['v', 'FLOAT', [1, 4, 5, 4]]], ['q', 'k', 'v'], ['y']),
      [f32('q', [1, 6, 3, 4], 1), f32('k', [1, 4, 5, 4], 2), f32('v', [1, 4, 5, 4], 3)], /the query heads \(6\) must be a multiple of the key\/value heads \(4\)/);
    const nonpad = attention(24, [['q', 'FLOAT', [1, 2, 3, 4]], ['k', 'FLOAT', [1, 2, 5, 4]], ['v', 'FLOAT', [1, 2, 5, 4]], ['n', 'INT64', [1]]],
      ['q', 'k', 'v', '', '', '', 'n'], ['y']);
    await refused(nonpad, [...qkv, int64('n', [1], [6])], /nonpad_kv_seqlen\[0\] is 6, outside 0..5/);
    const scatter = new OnnxGraphBuilder('scatter_bad', 24).input('past', 'FLOAT', [2, 1, 8, 2]).input('upd', 'FLOAT', [2, 1, 3, 2]).input('at', 'INT64', [2])
      .node('TensorScatter', ['past', 'upd', 'at'], ['y']).output('y', 'FLOAT').encode();
    await refused(scatter, [f32('past', [2, 1, 8, 2], 1), f32('upd', [2, 1, 3, 2], 2), int64('at', [2], [0, 6])],
      /write_indices\[1\] is 6: 3 rows from there do not fit the cache's 8 \(mode 'circular' wraps them\)/);
    await refused(scatter, [f32('past', [2, 1, 8, 2], 1), f32('upd', [2, 1, 3, 2], 2), int64('at', [2], [-1, 0])], /write_indices\[0\] is -1; a write index must not be negative/);
  });
});
