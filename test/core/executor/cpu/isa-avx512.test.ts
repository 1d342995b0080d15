/**
 * The convolution (2-D and 3-D), pooling, GEMM, element-wise fusion, differential (networks,
 * operator families, element types), control-flow, opset 18-21, PyTorch-export and recurrent
 * suites again with the avx512 kernels forced (GEBE_CPU_ISA=avx512), each against ONNX Runtime;
 * skipped where the CPU lacks them or where they are the default (test/helpers/cpu-isa.ts).
 */
import { describe, expect, it } from 'vitest';
import { activeCpuIsa, describeSkippedIsa, forceCpuIsa } from '../../../helpers/cpu-isa.js';

const skipped = forceCpuIsa('avx512');
if (skipped) {
  describeSkippedIsa('avx512', skipped);
} else {
  describe('avx512 kernels', () => {
    it('are the ones the engine uses', () => expect(activeCpuIsa()).toBe('avx512'));
  });
  await import('./conv-paths.test.js');
  await import('./conv-pool-fusion.test.js');
  await import('./conv-residual-fusion.test.js');
  await import('./pool-paths.test.js');
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
