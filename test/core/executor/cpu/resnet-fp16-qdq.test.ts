/**
 * The bench's FP16 and int8 ResNet-18 rows (test/helpers: resnet18({ half }) as model.half()
 * exports it, qdqResnet18() as quantize_static writes it), at a narrower width and a smaller image
 * so the suite stays quick, against ONNX Runtime at 1 and 2 threads. isa-*.test.ts run this file
 * again on every other ISA the CPU has.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { fromHalf, toHalf } from '../../../helpers/half.js';
import { randomValues } from '../../../helpers/onnx-builder.js';
import { resnet18 } from '../../../helpers/onnx-models.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';
import { qdqResnet18 } from '../../../helpers/qdq-models.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-resnet-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shape = { width: 16, size: 64, classes: 100 };
const dims = [1, 3, shape.size, shape.size];
const count = 3 * shape.size * shape.size;

async function both(file: string, input: CpuTensor, threads: number) {
  const session = CpuSession.load(file, { intraOpThreads: threads });
  try {
    const [out] = await session.run([input]);
    const ref = (await runOrt(file, [input], threads)).logits;
    expect(out.dims).toEqual(ref.dims.map(Number));
    return { ops: session.info().optimizedOperators, out, ref };
  } finally {
    session.close();
  }
}

for (const threads of [1, 2]) {
  describe(`ResNet-18 exports against ONNX Runtime, ${threads} thread(s)`, () => {
    it('model.half(): FP16 in and out, computed in FP32 with casts only at the graph edges', async () => {
      const file = path.join(dir, 'resnet18_fp16.onnx');
      writeFileSync(file, resnet18({ ...shape, half: true }));
      const input: CpuTensor = { name: 'input', datatype: 'FP16', dims, data: toHalf(randomValues(count, 41, 1)) };
      const { ops, out, ref } = await both(file, input, threads);
      expect(out.datatype).toBe('FP16');
      expect(ops.Cast).toBe(2);
      // ONNX Runtime's CPU provider also computes these operators in FP32 between casts: what may
      // differ is FP32 summation order, rounded to FP16 at the output.
      expect(maxRelativeError(fromHalf(out.data as Uint16Array), fromHalf(ref.data as Uint16Array))).toBeLessThan(1e-3);
    });

    for (const activation of ['INT8', 'UINT8'] as const) {
      it(`quantize_static, ${activation} activations: every Conv and residual Add on 8-bit values, within one step of ORT`, async () => {
        const file = path.join(dir, `resnet18_qdq_${activation}.onnx`);
        writeFileSync(file, await qdqResnet18({ ...shape, activation }));
        const input: CpuTensor = { name: 'input', datatype: 'FP32', dims, data: randomValues(count, 42, 1) };
        const { ops, out, ref } = await both(file, input, threads);
        expect(ops.QLinearConv).toBe(20);
        expect(ops.QLinearAdd).toBe(8);
        expect(ops.Conv ?? 0).toBe(0);
        expect(ops.Add ?? 0).toBe(0);
        const a = out.data as Float32Array, b = ref.data as Float32Array;
        // The logits' quantisation step: the smallest nonzero difference between two of ORT's logits.
        const sorted = Float32Array.from(b).sort();
        let step = Infinity;
        for (let i = 1; i < sorted.length; i++) if (sorted[i] > sorted[i - 1]) step = Math.min(step, sorted[i] - sorted[i - 1]);
        let worst = 0;
        for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.round(Math.abs(a[i] - b[i]) / step));
        expect(worst).toBeLessThanOrEqual(1);
      });
    }
  });
}
