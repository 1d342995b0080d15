/** ONNX models for the config↔model rule cases, built in code (no binary blobs in the tests). */
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';

/** image FLOAT [batch, 1, 28, 28] → probabilities FLOAT [batch, 10]. */
export function digitsModel(): Uint8Array {
  return new OnnxGraphBuilder('digits', 13)
    .input('image', 'FLOAT', ['batch', 1, 28, 28])
    .initializer('weight', 'FLOAT', [784, 10], randomValues(7840, 1, 0.05))
    .node('Flatten', ['image'], ['flat'], { axis: 1 })
    .node('MatMul', ['flat', 'weight'], ['logits'])
    .node('Softmax', ['logits'], ['probabilities'], { axis: 1 })
    .output('probabilities', 'FLOAT', ['batch', 10])
    .encode();
}

/** Two inputs: input_ids INT64 [batch, seq] and attention_mask INT64 [batch, seq] → logits FLOAT [batch, 2]. */
export function twoInputModel(): Uint8Array {
  return new OnnxGraphBuilder('two_inputs', 13)
    .input('input_ids', 'INT64', ['batch', 'seq'])
    .input('attention_mask', 'INT64', ['batch', 'seq'])
    .node('Add', ['input_ids', 'attention_mask'], ['sum'])
    .node('Cast', ['sum'], ['summed'], { to: 1 })
    .node('ReduceSum', ['summed'], ['logits'], { keepdims: 1 })
    .output('logits', 'FLOAT', ['batch', 2])
    .encode();
}

/** A model whose batch dim is fixed to 1: x FLOAT [1, 4] → y FLOAT [1, 4]. */
export function fixedBatchModel(): Uint8Array {
  return new OnnxGraphBuilder('fixed', 13).input('x', 'FLOAT', [1, 4]).node('Relu', ['x'], ['y']).output('y', 'FLOAT', [1, 4]).encode();
}

/** The config that matches digitsModel for the GE backend. */
export const DIGITS_CONFIG = `name: "m"
backend: "ge"
max_batch_size: 8
input [
  {
    name: "image"
    data_type: TYPE_FP32
    dims: [ 1, 28, 28 ]
  }
]
output [
  {
    name: "probabilities"
    data_type: TYPE_FP32
    dims: [ 10 ]
  }
]
`;

/**
 * An accumulator with implicit state, as Triton's sequence examples have it: INPUT, the START
 * control and the state ACC_IN (all FLOAT [batch, 1]) → OUTPUT = ACC_IN + INPUT and ACC_OUT (the
 * next state, the same sum). START is a model input the sequence batcher fills.
 */
export function accumulatorModel(): Uint8Array {
  return new OnnxGraphBuilder('accumulator', 13)
    .input('INPUT', 'FLOAT', ['batch', 1])
    .input('START', 'FLOAT', ['batch', 1])
    .input('ACC_IN', 'FLOAT', ['batch', 1])
    .node('Sub', ['START', 'START'], ['zero'])
    .node('Add', ['ACC_IN', 'zero'], ['acc'])
    .node('Add', ['acc', 'INPUT'], ['OUTPUT'])
    .node('Identity', ['OUTPUT'], ['ACC_OUT'])
    .output('OUTPUT', 'FLOAT', ['batch', 1])
    .output('ACC_OUT', 'FLOAT', ['batch', 1])
    .encode();
}

/** The config of accumulatorModel: the control input and the state are under sequence_batching only. */
export const ACCUMULATOR_CONFIG = `name: "m"
backend: "ge"
max_batch_size: 4
input [ { name: "INPUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
sequence_batching {
  control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ] } ]
  state [ {
    input_name: "ACC_IN"
    output_name: "ACC_OUT"
    data_type: TYPE_FP32
    dims: [ 1 ]
    initial_state { data_type: TYPE_FP32 dims: [ 1 ] zero_data: true name: "zero" }
  } ]
}
`;
