/**
 * A model written for Triton's ragged batching: input x arrives as one dimension (the batch's
 * elements one after another), lens and ends are batch inputs (each request's element count and
 * their running sum). It answers y = 2·x (a batch output, split by each request's shape of x) and,
 * per request, its count and end as [batch, 1] rows. `xDims` gives x (and y) another shape, for
 * a model that does not fit ragged batching.
 */
import { OnnxGraphBuilder, type Dim } from './onnx-builder.js';

export function raggedModel(xDims: Dim[] = ['n']): Uint8Array {
  const g = new OnnxGraphBuilder('ragged', 13);
  g.input('x', 'FLOAT', xDims);
  g.input('lens', 'INT32', ['b']);
  g.input('ends', 'INT32', ['b']);
  g.initializer('two', 'FLOAT', [], [2]);
  g.initializer('axis1', 'INT64', [1], [1]);
  g.node('Mul', ['x', 'two'], ['y']);
  g.node('Unsqueeze', ['lens', 'axis1'], ['count']);
  g.node('Unsqueeze', ['ends', 'axis1'], ['end']);
  g.output('y', 'FLOAT', xDims);
  g.output('count', 'INT32', ['b', 1]);
  g.output('end', 'INT32', ['b', 1]);
  return g.encode();
}

/** Its config: x ragged, the two batch inputs, y scattered by x; `extra` is appended. */
export function raggedConfig(name: string, extra = ''): string {
  return `name: "${name}"
backend: "ge"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
batch_input [
  { kind: BATCH_ELEMENT_COUNT target_name: "lens" data_type: TYPE_INT32 source_input: "x" },
  { kind: BATCH_ACCUMULATED_ELEMENT_COUNT target_name: "ends" data_type: TYPE_INT32 source_input: "x" }
]
output [
  { name: "y" data_type: TYPE_FP32 dims: [ -1 ] },
  { name: "count" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "end" data_type: TYPE_INT32 dims: [ 1 ] }
]
batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "y" source_input: "x" } ]
${extra}`;
}
