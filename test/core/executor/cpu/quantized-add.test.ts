/**
 * The 8-bit rows of quantize_rows.h against ONNX Runtime's unfused operators (graph optimisations
 * off, so it runs DequantizeLinear, Add and QuantizeLinear one by one, the arithmetic the fused
 * kernel must reproduce bit for bit): QuantizeLinear over lengths that leave vector tails, ties
 * at .5 (half to even), saturation and NaN; and DQ(a) + DQ(b) → Q fused into one 8-bit Add, over
 * every pair of 8-bit types, equal shapes and broadcasting, at 1 and 2 threads. isa-*.test.ts run
 * this file again on every other ISA the CPU has.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { ortTypes } from '../../../helpers/ort-types.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-qadd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

type Int8Type = 'UINT8' | 'INT8';
const zeroPoint = (t: Int8Type, v: number) => (t === 'UINT8' ? 128 + v : v);

/** Ours (fused as `ops` expects) against ORT with every graph optimisation off: the same bytes. */
async function agreeUnfused(model: Uint8Array, inputs: CpuTensor[], threads: number, ops: Record<string, number>) {
  const file = path.join(dir, `m${counter++}.onnx`);
  writeFileSync(file, model);
  const session = CpuSession.load(file, { intraOpThreads: threads });
  try {
    expect(session.info().optimizedOperators).toEqual(ops);
    const [out] = await session.run(inputs);
    const ref = await ort.InferenceSession.create(file, { intraOpNumThreads: threads, graphOptimizationLevel: 'disabled' });
    const feeds: Record<string, ort.Tensor> = {};
    for (const t of inputs) feeds[t.name] = new ort.Tensor(ortTypes[t.datatype] as 'float32', t.data as Float32Array, t.dims);
    const want = (await ref.run(feeds)).y;
    await ref.release();
    expect(out.dims).toEqual(want.dims.map(Number));
    expect(Array.from(out.data as Uint8Array)).toEqual(Array.from(want.data as Uint8Array));
  } finally {
    session.close();
  }
}

for (const threads of [1, 2]) {
  describe(`QuantizeLinear FP32 → 8-bit, ${threads} thread(s), bit-exact with ONNX Runtime`, () => {
    for (const t of ['UINT8', 'INT8'] as const)
      for (const n of [7, 16, 37, 40000])
        it(`${t}, ${n} elements: ties, saturation, NaN`, async () => {
          const g = new OnnxGraphBuilder('q', 13).input('x', 'FLOAT', [n]);
          g.initializer('s', 'FLOAT', [], [0.5]).initializer('z', t, [], [zeroPoint(t, 3)]);
          g.node('QuantizeLinear', ['x', 's', 'z'], ['y']);
          const x = randomValues(n, 50 + n, 80);
          // Exact halves (x / 0.5 = k + 0.5), out of range both ways, NaN and infinities.
          const specials = [0.25, 0.75, -0.25, -1.25, 1e9, -1e9, NaN, Infinity, -Infinity, 63.75, -64.25];
          for (let i = 0; i < n; i += 3) x[i] = specials[(i / 3) % specials.length];
          await agreeUnfused(g.output('y', t).encode(), [{ name: 'x', datatype: 'FP32', dims: [n], data: x }], threads, { QuantizeLinear: 1 });
        });
  });

  describe(`DQ(a) + DQ(b) → Q as one 8-bit Add, ${threads} thread(s), bit-exact with the unfused steps`, () => {
    const cases: Array<{ a: Int8Type; b: Int8Type; y: Int8Type; aDims: number[]; bDims: number[] }> = [
      { a: 'UINT8', b: 'UINT8', y: 'UINT8', aDims: [1, 64, 23, 29], bDims: [1, 64, 23, 29] },
      { a: 'INT8', b: 'INT8', y: 'INT8', aDims: [2, 8, 9, 7], bDims: [2, 8, 9, 7] },
      { a: 'UINT8', b: 'INT8', y: 'INT8', aDims: [3, 37], bDims: [3, 37] },
      { a: 'INT8', b: 'UINT8', y: 'UINT8', aDims: [2, 5, 19], bDims: [5, 1] },
      { a: 'UINT8', b: 'UINT8', y: 'UINT8', aDims: [1], bDims: [4, 33] },
    ];
    for (const c of cases)
      it(`${c.a} [${c.aDims}] + ${c.b} [${c.bDims}] → ${c.y}`, async () => {
        const g = new OnnxGraphBuilder('qadd', 13).input('a', 'FLOAT', c.aDims).input('b', 'FLOAT', c.bDims);
        g.initializer('sa', 'FLOAT', [], [0.031]).initializer('za', c.a, [], [zeroPoint(c.a, -5)])
          .initializer('sb', 'FLOAT', [], [0.017]).initializer('zb', c.b, [], [zeroPoint(c.b, 9)])
          .initializer('sy', 'FLOAT', [], [0.029]).initializer('zy', c.y, [], [zeroPoint(c.y, -2)]);
        g.node('QuantizeLinear', ['a', 'sa', 'za'], ['aq']).node('DequantizeLinear', ['aq', 'sa', 'za'], ['ad'])
          .node('QuantizeLinear', ['b', 'sb', 'zb'], ['bq']).node('DequantizeLinear', ['bq', 'sb', 'zb'], ['bd'])
          .node('Add', ['ad', 'bd'], ['sum']).node('QuantizeLinear', ['sum', 'sy', 'zy'], ['y']);
        const count = (d: number[]) => d.reduce((x, y) => x * y, 1);
        const inputs: CpuTensor[] = [
          { name: 'a', datatype: 'FP32', dims: c.aDims, data: randomValues(count(c.aDims), 61, 4) },
          { name: 'b', datatype: 'FP32', dims: c.bDims, data: randomValues(count(c.bDims), 62, 2.5) },
        ];
        await agreeUnfused(g.output('y', c.y).encode(), inputs, threads, { QuantizeLinear: 2, QLinearAdd: 1 });
      });
  });
}
