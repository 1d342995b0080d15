/**
 * GEBE_CPU_ISA naming kernels the engine cannot use is refused when a session loads, with the value
 * and the fix, instead of silently running other kernels than a test or benchmark asked for. (This
 * file runs in a process of its own, so forcing the variable here affects no other suite.)
 */
import { expect, it } from 'vitest';
import { CpuSession } from '../../../helpers/cpu-session.js';
import { fixtureModelPath } from '../../../helpers/onnx-fixtures.js';

it('refuses an unknown GEBE_CPU_ISA, naming it and the values it takes', () => {
  const saved = process.env.GEBE_CPU_ISA;
  process.env.GEBE_CPU_ISA = 'sse9';
  try {
    expect(() => CpuSession.load(fixtureModelPath('mnist-cnn.onnx'), { intraOpThreads: 1 })).toThrow(
      /GEBE_CPU_ISA=sse9 is not an instruction set the cpu engine knows; use portable, avx2 or avx512 \(this CPU runs up to \w+\), or unset it/,
    );
  } finally {
    if (saved === undefined) delete process.env.GEBE_CPU_ISA;
    else process.env.GEBE_CPU_ISA = saved;
  }
});
