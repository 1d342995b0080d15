/**
 * Einsum, which only ONNX's conformance data checked before, against ONNX Runtime at 1 and 2
 * threads: the equations exporters and users write (matmul, batched matmul, both halves of
 * attention, transpose, row sums, outer product, implicit output, a broadcast ellipsis, and each
 * operand and output layout of the SGEMM path), in FP32
 * with sizes that are not multiples of any vector width, and in INT32/INT64 (exact).
 */
import { describe, it } from 'vitest';
import type { CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues, seededRandom } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-ops-einsum-');

const count = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

const cases: Array<{ equation: string; shapes: number[][] }> = [
  { equation: 'ij,jk->ik', shapes: [[37, 29], [29, 41]] },
  { equation: 'bij,bjk->bik', shapes: [[3, 17, 23], [3, 23, 19]] },
  { equation: 'bhqd,bhkd->bhqk', shapes: [[2, 4, 33, 16], [2, 4, 33, 16]] },  // attention scores: Q·Kᵀ per head
  { equation: 'bhqk,bhkd->bhqd', shapes: [[2, 4, 33, 33], [2, 4, 33, 16]] },  // attention output: P·V per head
  { equation: 'ij->ji', shapes: [[37, 45]] },
  { equation: 'ij->i', shapes: [[37, 45]] },
  { equation: 'i,j->ij', shapes: [[37], [45]] },
  { equation: 'ij,jk', shapes: [[13, 9], [9, 11]] },  // implicit output: the indices seen once, alphabetically (ik)
  { equation: '...ij,jk->...ik', shapes: [[2, 3, 7, 5], [5, 6]] },  // a Linear layer over leading batch dims
  // Each way the SGEMM path lays out a product (einsum.cc, RunAsProduct): operands read in place,
  // transposed, or permuted first; the output written in place or permuted after.
  { equation: 'BGHID,BGHJD->BGHIJ', shapes: [[1, 3, 2, 17, 8], [1, 3, 2, 19, 8]] },  // MaxViT's attention
  { equation: 'ji,jk->ik', shapes: [[29, 37], [29, 41]] },  // A transposed
  { equation: 'ibj,bjk->bik', shapes: [[17, 3, 23], [3, 23, 19]] },  // A permuted
  { equation: 'bij,jbk->bik', shapes: [[3, 17, 23], [23, 3, 19]] },  // B permuted
  { equation: 'bij,bjk->ikb', shapes: [[3, 17, 23], [3, 23, 19]] },  // output permuted
  { equation: 'abcd,cdef->abef', shapes: [[4, 5, 6, 7], [6, 7, 3, 2]] },  // two summed, two row and two column indices
  { equation: 'bcd,dce->be', shapes: [[5, 6, 7], [7, 6, 4]] },  // the summed indices in another order in B
  { equation: 'bij,bjk->bik', shapes: [[1, 17, 23], [1, 23, 19]] },  // a batch of one
  { equation: 'bhqd,bhkd->bhqk', shapes: [[2, 4, 64, 64], [2, 4, 64, 64]] },  // heads big enough to share out over threads
  { equation: 'ij,jk->ik', shapes: [[130, 120], [120, 140]] },  // one product big enough to split over threads
  // The general loop: an index summed within one operand; operands broadcast against each other.
  { equation: 'ij,jk->k', shapes: [[13, 9], [9, 11]] },
  { equation: '...ij,...jk->...ik', shapes: [[1, 7, 5], [3, 5, 6]] },
];

describe.each([1, 2])('cpu engine vs ONNX Runtime, Einsum (threads=%i)', (threads) => {
  it.each(cases)('FP32 $equation on $shapes', async ({ equation, shapes }) => {
    const b = new OnnxGraphBuilder('einsum', 12);
    const names = shapes.map((_, i) => `x${i}`);
    shapes.forEach((dims, i) => b.input(names[i], 'FLOAT', dims));
    const model = b.node('Einsum', names, ['y'], { equation }).output('y', 'FLOAT').encode();
    const inputs: CpuTensor[] = shapes.map((dims, i) => ({ name: names[i], datatype: 'FP32', dims, data: randomValues(count(dims), 61 + i, 1) }));
    // Products go through the engine's FP32 GEMM and ONNX Runtime's, other equations through a sum
    // in double: dot products of up to 120 terms differ by FP32 rounding, and those that cancel
    // towards 0 are held to maxRelativeError's floor (1e-3 of the largest magnitude), as in the
    // other MatMul tests.
    await agree(model, inputs, threads, 1e-4);
  });

  it.each(['INT32', 'INT64'] as const)('%s: matmul, batched matmul, transpose, row sums and outer product (exact)', async (type) => {
    const b = new OnnxGraphBuilder('einsum_ints', 12).input('a', type, [3, 17, 23]).input('m', type, [3, 23, 19]).input('v', type, [45]);
    b.node('Einsum', ['a', 'm'], ['bmm'], { equation: 'bij,bjk->bik' })
      .node('Einsum', ['a'], ['t'], { equation: 'bij->bji' })
      .node('Einsum', ['a'], ['rows'], { equation: 'bij->bi' })
      .node('Einsum', ['v', 'v'], ['outer'], { equation: 'i,j->ij' })
      .output('bmm', type).output('t', type).output('rows', type).output('outer', type);
    const rand = seededRandom(type === 'INT32' ? 65 : 66);
    // Values up to ±1000: the products' sums stay far inside INT32 and below 2^53, so both are exact.
    const values = (dims: number[]) => Array.from({ length: count(dims) }, () => Math.floor(rand() * 2001) - 1000);
    const tensor = (name: string, dims: number[]): CpuTensor => (type === 'INT32'
      ? { name, datatype: 'INT32', dims, data: Int32Array.from(values(dims)) }
      : { name, datatype: 'INT64', dims, data: BigInt64Array.from(values(dims), BigInt) });
    await agree(b.encode(), [tensor('a', [3, 17, 23]), tensor('m', [3, 23, 19]), tensor('v', [45])], threads, 0);
  });
});
