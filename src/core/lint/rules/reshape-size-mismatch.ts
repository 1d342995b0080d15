import { elementCount, formatDims, maxBatchSize, tensors } from '../helpers.js';
import { hint, type ConfigRule } from '../rule.js';

/** Element counts of the stretches between variable-size (-1) dims, as Triton compares them. */
function chunks(dims: number[]): number[] {
  const out: number[] = [];
  let current = 1;
  for (const d of dims) {
    if (d === -1) {
      out.push(current);
      current = 1;
    } else current *= d;
  }
  out.push(current);
  return out;
}

export const rule: ConfigRule = {
  id: 'RESHAPE_SIZE_MISMATCH',
  purpose: 'Checks that a reshape describes the same number of elements, and the same variable-size dimensions, as the dims it reshapes.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    for (const t of tensors(ctx.config)) {
      const reshape = t.tensor.reshape;
      if (!reshape) continue;
      const dims = (t.tensor.dims ?? []).map(Number);
      const shape = (reshape.shape ?? []).map(Number);
      if (shape.some((d) => d === 0 || d < -1) || dims.some((d) => d === 0 || d < -1)) continue; // other rules report those
      const at = [...t.path, 'reshape'];
      if (shape.length === 0 && maxBatchSize(ctx.config) === 0) {
        ctx.report({
          at,
          name: true,
          message: `${t.label} cannot have empty reshape for non-batching model as scalar tensors are not supported`,
          fix: hint('give the reshape at least one dimension, e.g. reshape { shape: [ 1 ] }'),
        });
        continue;
      }
      const dimsSize = elementCount(dims);
      const reshapeSize = elementCount(shape);
      // Triton's one exception: dims [1] may reshape to a scalar (empty shape).
      if (dimsSize !== reshapeSize && (reshapeSize !== 0 || dimsSize !== 1)) {
        ctx.report({
          at,
          name: true,
          message: `${t.label} has different size for dims and reshape: dims ${formatDims(dims)} vs reshape ${formatDims(shape)}`,
          fix: hint('make the reshape hold as many elements as dims (variable -1 dims must line up)'),
        });
        continue;
      }
      if (dimsSize !== -1) continue;
      const a = chunks(dims);
      const b = chunks(shape);
      if (a.length !== b.length) {
        ctx.report({
          at,
          name: true,
          message: `${t.label} has different number of variable-size dimensions for dims and reshape: dims ${formatDims(dims)} vs reshape ${formatDims(shape)}`,
          fix: hint('use as many -1 dims in the reshape as in dims'),
        });
      } else if (a.some((n, i) => n !== b[i])) {
        ctx.report({
          at,
          name: true,
          message: `${t.label} has different size for dims and reshape: the fixed dims between the -1 dims differ (dims ${formatDims(dims)} vs reshape ${formatDims(shape)})`,
          fix: hint('keep the same element count between each pair of -1 dims'),
        });
      }
    }
  },
};
