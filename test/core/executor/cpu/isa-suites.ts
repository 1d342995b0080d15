/**
 * What the isa-*.test.ts files share: each forces one ISA's kernels (GEBE_CPU_ISA) and runs these
 * suites again, each against ONNX Runtime: convolution (2-D and 3-D), pooling, normalisation
 * statistics, softmax, row copies (Pad, Tile, PRelu), GEMM, element-wise fusion, differential
 * (networks, operator families, element types), control flow, opsets 18-21, PyTorch exports and
 * recurrent cells. Skipped where the CPU lacks the ISA or where it is the default
 * (test/helpers/cpu-isa.ts). Not a test file itself (vitest takes *.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { activeCpuIsa, describeSkippedIsa, forceCpuIsa } from '../../../helpers/cpu-isa.js';

export async function rerunSuitesWithIsa(isa: Parameters<typeof forceCpuIsa>[0]): Promise<void> {
  const skipped = forceCpuIsa(isa);
  if (skipped) {
    describeSkippedIsa(isa, skipped);
    return;
  }
  describe(`${isa} kernels`, () => {
    it('are the ones the engine uses', () => expect(activeCpuIsa()).toBe(isa));
  });
  await import('./conv-paths.test.js');
  await import('./conv-pool-fusion.test.js');
  await import('./conv-residual-fusion.test.js');
  await import('./pool-paths.test.js');
  await import('./norm-statistics.test.js');
  await import('./softmax-paths.test.js');
  await import('./row-copy-paths.test.js');
  await import('./gemm-paths.test.js');
  await import('./elementwise-fusion.test.js');
  await import('./differential.test.js');
  await import('./recurrent.test.js');
  await import('./nd-conv-pool.test.js');
  await import('./quantized-paths.test.js');
  await import('./resnet-fp16-qdq.test.js');
  await import('./quantized-add.test.js');
  await import('./operators-differential.test.js');
  await import('./operators-differential-unary.test.js');
  await import('./operators-differential-reduce.test.js');
  await import('./operators-differential-einsum.test.js');
  await import('./operators-differential-types.test.js');
  await import('./control-flow.test.js');
  await import('./opset18-21.test.js');
  await import('./torch-exports.test.js');
}
