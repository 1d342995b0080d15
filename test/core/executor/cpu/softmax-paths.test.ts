/**
 * Softmax and LogSoftmax (native/src/cpu/ops/softmax.cc) over their three paths: a contiguous row
 * (the last axis: SoftmaxRow, LogSoftmaxRow), blocks of neighbouring columns along a middle axis
 * with 16 or more values after it (a segmentation head's classes: SoftmaxColumns, 512 columns a
 * block, so wider maps end in a partial block), and the strided loop for fewer. Against ONNX
 * Runtime, and against a float64 reference for rows holding NaN and infinities, whose outputs
 * must be the same NaN, zero and infinity as the scalar loop's.
 * test/core/executor/cpu/isa-*.test.ts run it again on every other ISA.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-softmax-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Op = 'Softmax' | 'LogSoftmax';
let saved = 0;
let seed = 5200;

function softmaxModel(op: Op, dims: number[], axis: number): string {
  const g = new OnnxGraphBuilder('softmax', 13);
  g.input('x', 'FLOAT', dims);
  g.node(op, ['x'], ['y'], { axis }, 'softmax');
  g.output('y', 'FLOAT', undefined);
  const file = path.join(dir, `s${saved++}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

async function runGebe(model: string, x: CpuTensor, threads: number): Promise<Float32Array> {
  const session = CpuSession.load(model, { intraOpThreads: threads });
  try {
    return (await session.run([x]))[0].data as Float32Array;
  } finally {
    session.close();
  }
}

/** Along `axis`, in float64, with the engine's rule for the shift: the largest value that is not NaN. */
function reference(op: Op, x: Float32Array, dims: number[], axis: number): Float64Array {
  const dim = dims[axis], inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1), outer = x.length / (dim * inner);
  const y = new Float64Array(x.length);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const at = (d: number) => o * dim * inner + d * inner + i;
      let mx = -Infinity;
      for (let d = 0; d < dim; d++) if (x[at(d)] > mx) mx = x[at(d)];
      let sum = 0;
      for (let d = 0; d < dim; d++) sum += Math.exp(x[at(d)] - mx);
      for (let d = 0; d < dim; d++) y[at(d)] = op === 'Softmax' ? Math.exp(x[at(d)] - mx) / sum : x[at(d)] - mx - Math.log(sum);
    }
  }
  return y;
}

const shapes: { name: string; dims: number[]; axis: number }[] = [
  { name: 'the last axis, rows of 1000', dims: [3, 1000], axis: -1 },
  { name: 'the last axis, rows of 13', dims: [2, 4, 13], axis: 2 },
  { name: '21 classes over a 9x13 map (one partial block)', dims: [2, 21, 9, 13], axis: 1 },
  { name: '5 classes over a 40x40 map (blocks of 512 and a partial one)', dims: [1, 5, 40, 40], axis: 1 },
  { name: '7 values with 3 after them (the strided loop)', dims: [2, 7, 3], axis: 1 },
];

describe('softmax paths vs ONNX Runtime', () => {
  for (const op of ['Softmax', 'LogSoftmax'] as const) {
    for (const s of shapes) {
      it.each([1, 2])(`${op} along ${s.name} (threads %i)`, async (threads) => {
        const x: CpuTensor = { name: 'x', datatype: 'FP32', dims: s.dims, data: randomValues(s.dims.reduce((a, b) => a * b, 1), seed++, 4) };
        const model = softmaxModel(op, s.dims, s.axis);
        const got = await runGebe(model, x, threads);
        // Both sides' exponentials and logarithms are approximations: 1e-4 as the other operator
        // suites; against the float64 values, within 1e-5 of each (or of 1, for small ones).
        expect(maxRelativeError(got, (await runOrt(model, [x])).y.data as Float32Array)).toBeLessThan(1e-4);
        const want = reference(op, x.data as Float32Array, s.dims, s.axis < 0 ? s.dims.length + s.axis : s.axis);
        let worst = 0;
        for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i])));
        expect(worst).toBeLessThan(1e-5);
      });
    }
  }
});

describe('softmax with NaN and infinities', () => {
  // Per row of 40 (the last axis) or per column of a [1, 40, 4, 8] map (axis 1): one NaN (all NaN
  // out), one +inf (NaN: inf − inf), all -inf (NaN), and -inf among finite values (0; LogSoftmax
  // -inf).
  const special = (dims: number[], axis: number): Float32Array => {
    const x = new Float32Array(randomValues(dims.reduce((a, b) => a * b, 1), seed++, 3));
    const dim = dims[axis === -1 ? dims.length - 1 : axis], inner = axis === -1 ? 1 : dims.slice(axis + 1).reduce((a, b) => a * b, 1);
    const set = (line: number, d: number, v: number) => { x[Math.floor(line / inner) * dim * inner + d * inner + (line % inner)] = v; };
    set(0, 5, NaN);
    set(1, dim - 1, Infinity);
    for (let d = 0; d < dim; d++) set(2, d, -Infinity);
    set(3, 0, -Infinity);
    set(3, dim - 2, -Infinity);
    return x;
  };
  for (const op of ['Softmax', 'LogSoftmax'] as const) {
    for (const [dims, axis] of [[[4, 40], -1], [[1, 40, 4, 8], 1]] as const) {
      it(`${op} along ${axis === -1 ? 'the last axis' : 'axis 1 of a map'}`, async () => {
        const data = special([...dims], axis);
        const got = await runGebe(softmaxModel(op, [...dims], axis), { name: 'x', datatype: 'FP32', dims: [...dims], data }, 1);
        const want = reference(op, data, [...dims], axis === -1 ? dims.length - 1 : axis);
        for (let i = 0; i < got.length; i++) {
          if (!Number.isFinite(want[i]) || want[i] === 0) expect(got[i], `element ${i}`).toBe(want[i]);
          else expect(Math.abs(got[i] - want[i]), `element ${i}`).toBeLessThan(1e-5 * Math.max(1, Math.abs(want[i])));
        }
      });
    }
  }
});
