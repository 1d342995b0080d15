/**
 * A stateful ONNX accumulator for the sequence batcher's tests, and the repository around it:
 * STATE_OUT = STATE_IN + INPUT (the implicit state), OUTPUT = STATE_OUT, FLAGS = 100·START +
 * 10·END + READY (what the batcher filled into the control inputs), CORRID_OUT = CORRID.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OnnxGraphBuilder, type OnnxTypeName } from './onnx-builder.js';

export type FlagType = 'fp32' | 'int32' | 'bool';
export type CorrIdType = 'TYPE_UINT64' | 'TYPE_INT32' | 'TYPE_STRING';

const ONNX_FLAG: Record<FlagType, OnnxTypeName> = { fp32: 'FLOAT', int32: 'INT32', bool: 'BOOL' };
const ONNX_CORRID: Record<CorrIdType, OnnxTypeName> = { TYPE_UINT64: 'UINT64', TYPE_INT32: 'INT32', TYPE_STRING: 'STRING' };

export const STATE_WIDTH = 4;

export function accumulatorOnnx(flag: FlagType = 'fp32', corrid: CorrIdType = 'TYPE_UINT64'): Uint8Array {
  const g = new OnnxGraphBuilder('accumulator');
  const t = ONNX_FLAG[flag];
  g.input('INPUT', 'FLOAT', ['batch', STATE_WIDTH])
    .input('STATE_IN', 'FLOAT', ['batch', STATE_WIDTH])
    .input('START', t, ['batch', 1])
    .input('END', t, ['batch', 1])
    .input('READY', t, ['batch', 1])
    .input('CORRID', ONNX_CORRID[corrid], ['batch', 1])
    .initializer('hundred', 'FLOAT', [], [100])
    .initializer('ten', 'FLOAT', [], [10])
    .node('Add', ['STATE_IN', 'INPUT'], ['STATE_OUT'])
    .node('Identity', ['STATE_OUT'], ['OUTPUT'])
    .node('Cast', ['START'], ['start_f'], { to: 1 })
    .node('Cast', ['END'], ['end_f'], { to: 1 })
    .node('Cast', ['READY'], ['ready_f'], { to: 1 })
    .node('Mul', ['start_f', 'hundred'], ['start_100'])
    .node('Mul', ['end_f', 'ten'], ['end_10'])
    .node('Add', ['start_100', 'end_10'], ['se'])
    .node('Add', ['se', 'ready_f'], ['FLAGS'])
    .output('OUTPUT', 'FLOAT', ['batch', STATE_WIDTH])
    .output('STATE_OUT', 'FLOAT', ['batch', STATE_WIDTH])
    .output('FLAGS', 'FLOAT', ['batch', 1]);
  if (corrid === 'TYPE_STRING') {
    g.node('Identity', ['CORRID'], ['CORRID_OUT']).output('CORRID_OUT', 'STRING', ['batch', 1]);
  } else {
    g.node('Cast', ['CORRID'], ['CORRID_OUT'], { to: 1 }).output('CORRID_OUT', 'FLOAT', ['batch', 1]);
  }
  return g.encode();
}

export interface AccumulatorRepoOptions {
  name?: string;
  strategy?: 'direct' | 'oldest';
  flag?: FlagType;
  corrid?: CorrIdType;
  maxBatchSize?: number;
  idleUs?: number;
  candidates?: number;
  instances?: number;
  /** Initial state values (written to initial_state/init.bin); zeros when absent. */
  initial?: number[];
}

const FLAG_FIELD: Record<FlagType, string> = { fp32: 'fp32_false_true: [ 0, 1 ]', int32: 'int32_false_true: [ 0, 1 ]', bool: 'bool_false_true: [ false, true ]' };

export function accumulatorConfig(o: AccumulatorRepoOptions = {}): string {
  const flag = FLAG_FIELD[o.flag ?? 'fp32'];
  const corridType = o.corrid ?? 'TYPE_UINT64';
  const strategy = (o.strategy ?? 'direct') === 'oldest'
    ? `oldest { max_candidate_sequences: ${o.candidates ?? 4} preferred_batch_size: [ 2 ] max_queue_delay_microseconds: 2000 }`
    : 'direct { max_queue_delay_microseconds: 1000 }';
  const initial = o.initial
    ? `initial_state { data_type: TYPE_FP32 dims: [ ${STATE_WIDTH} ] data_file: "init.bin" name: "init" }`
    : `initial_state { data_type: TYPE_FP32 dims: [ ${STATE_WIDTH} ] zero_data: true name: "zero" }`;
  return `name: "${o.name ?? 'accumulator'}"
backend: "onnxruntime"
max_batch_size: ${o.maxBatchSize ?? 4}
input [ { name: "INPUT" data_type: TYPE_FP32 dims: [ ${STATE_WIDTH} ] } ]
output [
  { name: "OUTPUT" data_type: TYPE_FP32 dims: [ ${STATE_WIDTH} ] },
  { name: "FLAGS" data_type: TYPE_FP32 dims: [ 1 ] },
  { name: "CORRID_OUT" data_type: ${corridType === 'TYPE_STRING' ? 'TYPE_STRING' : 'TYPE_FP32'} dims: [ 1 ] }
]
instance_group [ { kind: KIND_CPU count: ${o.instances ?? 1} } ]
sequence_batching {
  max_sequence_idle_microseconds: ${o.idleUs ?? 5000000}
  ${strategy}
  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START ${flag} } ] },
    { name: "END" control [ { kind: CONTROL_SEQUENCE_END ${flag} } ] },
    { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY ${flag} } ] },
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: ${corridType} } ] }
  ]
  state [ {
    input_name: "STATE_IN" output_name: "STATE_OUT" data_type: TYPE_FP32 dims: [ ${STATE_WIDTH} ]
    ${initial}
  } ]
}
`;
}

/** Writes <root>/<name>/{config.pbtxt,1/model.onnx[,initial_state/init.bin]}; returns the model directory. */
export function writeAccumulatorRepo(root: string, o: AccumulatorRepoOptions = {}): string {
  const dir = path.join(root, o.name ?? 'accumulator');
  mkdirSync(path.join(dir, '1'), { recursive: true });
  writeFileSync(path.join(dir, '1', 'model.onnx'), accumulatorOnnx(o.flag, o.corrid));
  writeFileSync(path.join(dir, 'config.pbtxt'), accumulatorConfig(o));
  if (o.initial) {
    mkdirSync(path.join(dir, 'initial_state'), { recursive: true });
    writeFileSync(path.join(dir, 'initial_state', 'init.bin'), new Uint8Array(Float32Array.from(o.initial).buffer));
  }
  return dir;
}
