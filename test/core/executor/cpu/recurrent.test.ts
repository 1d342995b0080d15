/**
 * RNN, GRU and LSTM (rnn.cc, rnn_direction.cc) against ONNX Runtime at 1 and 2 threads, over what
 * the recurrence branches on: constant weights (packed at load) and weights given at run time, every
 * direction, both layouts, GRU with and without linear_before_reset, initial states,
 * sequence_lens, peepholes, clip, non-default activations, and a step GEMM big enough to be
 * threaded. Also run with each ISA forced (isa-*.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-recurrent-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-recurrent-layout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const count = (dims: number[]) => dims.reduce((a, b) => a * b, 1);
const f32 = (name: string, dims: number[], seed: number, scale = 1): CpuTensor => ({ name, datatype: 'FP32', dims, data: randomValues(count(dims), seed, scale) });
const lens = (values: number[]): CpuTensor => ({ name: 'lens', datatype: 'INT32', dims: [values.length], data: Int32Array.from(values) });

type Op = 'RNN' | 'GRU' | 'LSTM';
interface Case {
  op: Op;
  seq: number;
  batch: number;
  input: number;
  hidden: number;
  attrs?: Record<string, number | string | string[] | number[]>;
  /** W and R (and B) as graph inputs instead of initializers. */
  weightsAsInputs?: boolean;
  /** Which optional inputs the node gets. */
  bias?: boolean;
  seqLens?: number[];
  initial?: boolean;
  peepholes?: boolean;
}

/**
 * The model of one case. ONNX Runtime runs only layout 0, so for it (`transposedForOrt`) a layout-1
 * case becomes the layout-0 cell between Transposes, which computes the same outputs.
 */
function recurrentModel(c: Case, transposedForOrt = false): { model: Uint8Array; inputs: CpuTensor[] } {
  const gates = c.op === 'RNN' ? 1 : c.op === 'GRU' ? 3 : 4;
  const dirs = c.attrs?.direction === 'bidirectional' ? 2 : 1;
  const batchFirst = c.attrs?.layout === 1;
  const H = c.hidden, G = gates * H;
  const xDims = batchFirst ? [c.batch, c.seq, c.input] : [c.seq, c.batch, c.input];
  const stateDims = batchFirst ? [c.batch, dirs, H] : [dirs, c.batch, H];
  const b = new OnnxGraphBuilder('recurrent', 14).input('x', 'FLOAT', xDims);
  const inputs: CpuTensor[] = [f32('x', xDims, 1)];
  const weight = (name: string, dims: number[], seed: number) => {
    if (c.weightsAsInputs) {
      b.input(name, 'FLOAT', dims);
      inputs.push(f32(name, dims, seed, 0.4));
    } else {
      b.initializer(name, 'FLOAT', dims, randomValues(count(dims), seed, 0.4));
    }
  };
  weight('w', [dirs, G, c.input], 2);
  weight('r', [dirs, G, H], 3);
  const wrap = transposedForOrt && batchFirst;
  const state = (name: string) => {
    if (!wrap) return name;
    b.node('Transpose', [name], [`${name}_t`], { perm: [1, 0, 2] });
    return `${name}_t`;
  };
  const names = [state('x'), 'w', 'r', '', '', '', '', ''];
  if (c.bias) {
    weight('b', [dirs, 2 * G], 4);
    names[3] = 'b';
  }
  if (c.seqLens) {
    b.input('lens', 'INT32', [c.batch]);
    inputs.push(lens(c.seqLens));
    names[4] = 'lens';
  }
  if (c.initial) {
    b.input('h0', 'FLOAT', stateDims);
    inputs.push(f32('h0', stateDims, 5));
    names[5] = state('h0');
    if (c.op === 'LSTM') {
      b.input('c0', 'FLOAT', stateDims);
      inputs.push(f32('c0', stateDims, 6));
      names[6] = state('c0');
    }
  }
  if (c.peepholes) {
    weight('p', [dirs, 3 * H], 7);
    names[7] = 'p';
  }
  while (names[names.length - 1] === '') names.pop();
  const outs = c.op === 'LSTM' ? ['y', 'yh', 'yc'] : ['y', 'yh'];
  if (wrap) {
    b.node(c.op, names, outs.map((o) => `${o}_t`), { hidden_size: H, ...c.attrs, layout: 0 });
    b.node('Transpose', ['y_t'], ['y'], { perm: [2, 0, 1, 3] });
    for (const o of outs.slice(1)) b.node('Transpose', [`${o}_t`], [o], { perm: [1, 0, 2] });
  } else {
    b.node(c.op, names, outs, { hidden_size: H, ...c.attrs });
  }
  for (const o of outs) b.output(o, 'FLOAT');
  return { model: b.encode(), inputs };
}

const cases: Array<[string, Case]> = [
  ['GRU forward, linear_before_reset=0, bias, initial_h, sequence_lens', { op: 'GRU', seq: 6, batch: 3, input: 5, hidden: 7, bias: true, initial: true, seqLens: [6, 1, 4] }],
  ['GRU bidirectional, linear_before_reset=1 (what PyTorch exports)', { op: 'GRU', seq: 5, batch: 2, input: 4, hidden: 9, bias: true, attrs: { direction: 'bidirectional', linear_before_reset: 1 } }],
  ['GRU bidirectional, weights at run time, sequence_lens with a 0', { op: 'GRU', seq: 4, batch: 3, input: 3, hidden: 5, bias: true, weightsAsInputs: true, seqLens: [4, 0, 2], attrs: { direction: 'bidirectional' } }],
  ['GRU reverse, layout=1, no bias, clip', { op: 'GRU', seq: 5, batch: 2, input: 6, hidden: 8, initial: true, attrs: { direction: 'reverse', layout: 1, clip: 0.7 } }],
  ['LSTM forward, bias, initial h and c, sequence_lens', { op: 'LSTM', seq: 7, batch: 3, input: 5, hidden: 6, bias: true, initial: true, seqLens: [3, 7, 5] }],
  ['LSTM bidirectional, layout=1, peepholes, clip, sequence_lens', { op: 'LSTM', seq: 5, batch: 3, input: 4, hidden: 10, bias: true, initial: true, peepholes: true, seqLens: [5, 2, 4], attrs: { direction: 'bidirectional', layout: 1, clip: 1.5 } }],
  ['LSTM reverse, weights at run time, peepholes, activations Sigmoid/Relu/Tanh', { op: 'LSTM', seq: 4, batch: 2, input: 3, hidden: 5, bias: true, weightsAsInputs: true, peepholes: true, attrs: { direction: 'reverse', activations: ['Sigmoid', 'Relu', 'Tanh'] } }],
  ['LSTM with a step GEMM big enough to be threaded (batch 8, hidden 192: 1.2M multiply-adds a step)', { op: 'LSTM', seq: 3, batch: 8, input: 20, hidden: 192, bias: true, initial: true }],
  ['RNN bidirectional, Relu/Tanh activations, initial_h, sequence_lens', { op: 'RNN', seq: 6, batch: 3, input: 4, hidden: 7, bias: true, initial: true, seqLens: [2, 6, 5], attrs: { direction: 'bidirectional', activations: ['Relu', 'Tanh'] } }],
  ['RNN reverse, layout=1, weights at run time, no bias', { op: 'RNN', seq: 5, batch: 2, input: 3, hidden: 4, weightsAsInputs: true, attrs: { direction: 'reverse', layout: 1 } }],
];

describe.each([1, 2])('RNN, GRU, LSTM vs ONNX Runtime (threads=%i)', (threads) => {
  it.each(cases)('%s', async (_name, c) => {
    const { model, inputs } = recurrentModel(c);
    if (c.attrs?.layout !== 1) return agree(model, inputs, threads);
    const file = path.join(dir, `${c.op}-${threads}-${Math.random().toString(36).slice(2)}.onnx`);
    writeFileSync(file, model);
    const session = CpuSession.load(file, { intraOpThreads: threads });
    try {
      const outputs = await session.run(inputs);
      const reference = await runOrt(recurrentModel(c, true).model, inputs, threads);
      for (const out of outputs) {
        expect(out.dims, out.name).toEqual(reference[out.name].dims.map(Number));
        expect(maxRelativeError(out.data as Float32Array, reference[out.name].data as Float32Array), out.name).toBeLessThan(1e-4);
      }
    } finally {
      session.close();
    }
  });
});
