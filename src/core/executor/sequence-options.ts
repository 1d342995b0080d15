/**
 * sequence_batching → the native sequence batcher's options (native/src/scheduler/sequence_*):
 * the strategy and its candidate slots, the idle timeout, the control inputs the batcher fills
 * and the implicit states it carries between the steps of a sequence (initial_state read here,
 * from the model's initial_state/ folder). What gebe does not implement is refused with a
 * message naming the field; the bounds are limits.ts's (checked before a load reaches this).
 */
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import { DEFAULT_CONFIG_LIMITS } from '../config/limits.js';
import type { DataTypeName, ModelConfig } from '../config/model-config.js';
import { outsideMessage, resolveInside } from '../repository/inside.js';
import { configTypeCode, datatypeFromConfig, elementSize } from '../kserve/datatypes.js';

/** Triton's default max_sequence_idle_microseconds (1 s) when the config leaves it 0. */
export const DEFAULT_MAX_SEQUENCE_IDLE_US = 1_000_000;

/** The data types a CONTROL_SEQUENCE_CORRID input may have (Triton's). */
const CORRID_TYPES: DataTypeName[] = ['TYPE_UINT64', 'TYPE_INT64', 'TYPE_UINT32', 'TYPE_INT32', 'TYPE_STRING'];

export interface NativeSequenceControl {
  name: string;
  kind: 'start' | 'end' | 'ready' | 'corrid';
  dtype: number;
  falseValue: number;
  trueValue: number;
}

export interface NativeSequenceState {
  inputName: string;
  outputName: string;
  dtype: number;
  dims: number[];
  /** The initial_state bytes; absent: zeros. */
  initial?: Uint8Array;
}

export interface NativeSequenceOptions {
  oldest: boolean;
  slotsPerInstance: number;
  maxIdleUs: number;
  controls: NativeSequenceControl[];
  states: NativeSequenceState[];
}

/** How the model scheduler batches a sequence model's steps (the strategy's batching fields). */
export interface SequenceBatching {
  sequence: NativeSequenceOptions;
  preferredBatchSizes: number[];
  maxQueueDelayUs: number;
  /** iterative_sequence: each request is a sequence of its own, run until the model stops rescheduling it. */
  iterative: boolean;
}

interface ControlConfig {
  kind?: string;
  int32_false_true?: number[];
  fp32_false_true?: number[];
  bool_false_true?: boolean[];
  data_type?: DataTypeName;
}

interface InitialStateConfig {
  data_type?: DataTypeName;
  dims?: number[];
  zero_data?: boolean;
  data_file?: string;
  name?: string;
}

interface StateConfig {
  input_name?: string;
  output_name?: string;
  data_type?: DataTypeName;
  dims?: number[];
  initial_state?: InitialStateConfig[];
}

interface SequenceBatchingConfig {
  max_sequence_idle_microseconds?: number;
  control_input?: Array<{ name?: string; control?: ControlConfig[] }>;
  direct?: { max_queue_delay_microseconds?: number };
  oldest?: { max_candidate_sequences?: number; preferred_batch_size?: number[]; max_queue_delay_microseconds?: number };
  state?: StateConfig[];
  iterative_sequence?: boolean;
}

const KINDS: Record<string, NativeSequenceControl['kind']> = {
  CONTROL_SEQUENCE_START: 'start',
  CONTROL_SEQUENCE_END: 'end',
  CONTROL_SEQUENCE_READY: 'ready',
  CONTROL_SEQUENCE_CORRID: 'corrid',
};

function refuse(model: string, field: string, message: string, hint?: string): never {
  throw new GebeError(`sequence_batching.${field} of model '${model}': ${message}`, hint ? { hint } : {});
}

/**
 * undefined for a model without sequence_batching. `iterative` says whether the caller runs
 * iterative sequences (the Python backend reschedules requests; the native core does not).
 */
export function sequenceBatching(model: string, modelDir: string, config: ModelConfig, iterative: 'refused' | 'allowed' = 'refused'): SequenceBatching | undefined {
  const seq = config.sequence_batching as SequenceBatchingConfig | undefined;
  if (seq === undefined) return undefined;
  if (seq.iterative_sequence === true && iterative === 'refused') {
    refuse(model, 'iterative_sequence', 'iterative sequences (request rescheduling) are implemented by gebe serve for Python-backend models only', 'remove iterative_sequence');
  }
  const maxBatchSize = Number(config.max_batch_size ?? 0);
  const oldest = seq.oldest !== undefined;
  // Slots are counters, not allocations (a state is made when its sequence starts), but stay within
  // the bound limits.ts sets for max_candidate_sequences; a larger max_batch_size gets that many.
  const wanted = oldest ? Number(seq.oldest?.max_candidate_sequences ?? 0) || Math.max(1, maxBatchSize) : Math.max(1, maxBatchSize);
  const slots = Math.min(wanted, DEFAULT_CONFIG_LIMITS.sequenceSlots);
  const sequence: NativeSequenceOptions = {
    oldest,
    slotsPerInstance: maxBatchSize > 0 ? slots : 1,
    maxIdleUs: Number(seq.max_sequence_idle_microseconds ?? 0) || DEFAULT_MAX_SEQUENCE_IDLE_US,
    controls: (seq.control_input ?? []).flatMap((input, i) => (input.control ?? []).map((c, j) => control(model, `control_input[${i}].control[${j}]`, input.name ?? '', c))),
    states: (seq.state ?? []).map((s, i) => state(model, modelDir, `state[${i}]`, s)),
  };
  const strategy = oldest ? seq.oldest : seq.direct;
  return {
    sequence,
    preferredBatchSizes: oldest ? (seq.oldest?.preferred_batch_size ?? []).map(Number).filter((n) => n > 0 && n <= maxBatchSize) : [],
    maxQueueDelayUs: Number(strategy?.max_queue_delay_microseconds ?? 0),
    iterative: seq.iterative_sequence === true,
  };
}

function control(model: string, at: string, name: string, c: ControlConfig): NativeSequenceControl {
  const kind = KINDS[c.kind ?? 'CONTROL_SEQUENCE_START'];
  if (!kind) refuse(model, `${at}.kind`, `${c.kind} is not a control gebe fills`, 'use CONTROL_SEQUENCE_START, _END, _READY or _CORRID');
  if (kind === 'corrid') {
    const type = c.data_type ?? 'TYPE_INVALID';
    if (!CORRID_TYPES.includes(type)) refuse(model, `${at}.data_type`, `a CONTROL_SEQUENCE_CORRID input must be ${CORRID_TYPES.join(', ')}, not ${type}`);
    return { name, kind, dtype: configTypeCode(type)!, falseValue: 0, trueValue: 0 };
  }
  const pairs: Array<[number[] | boolean[] | undefined, DataTypeName]> = [
    [c.fp32_false_true, 'TYPE_FP32'], [c.int32_false_true, 'TYPE_INT32'], [c.bool_false_true, 'TYPE_BOOL'],
  ];
  const given = pairs.filter(([values]) => values !== undefined && values.length > 0);
  if (given.length !== 1 || given[0]![0]!.length !== 2) {
    refuse(model, at, `control '${name}' needs exactly one of fp32_false_true, int32_false_true, bool_false_true with two values`);
  }
  const [values, type] = given[0]!;
  return { name, kind, dtype: configTypeCode(type)!, falseValue: Number(values![0]), trueValue: Number(values![1]) };
}

function state(model: string, modelDir: string, at: string, s: StateConfig): NativeSequenceState {
  const type = s.data_type ?? 'TYPE_INVALID';
  const datatype = datatypeFromConfig(type);
  const dims = (s.dims ?? []).map(Number);
  if (!datatype || datatype === 'BYTES') refuse(model, `${at}.data_type`, `gebe carries fixed-size states only, not ${type}`);
  if (dims.length === 0 || dims.some((d) => d < 1)) {
    refuse(model, `${at}.dims`, `gebe carries fixed-size states only: dims [${dims.join(',')}] must all be >= 1`, 'give the state its full shape (without the batch dimension)');
  }
  const out: NativeSequenceState = { inputName: s.input_name ?? '', outputName: s.output_name ?? '', dtype: configTypeCode(type)!, dims };
  const initial = s.initial_state ?? [];
  if (initial.length > 1) refuse(model, `${at}.initial_state`, 'gebe takes one initial_state per state');
  const first = initial[0];
  if (first?.data_file) {
    const bytes = dims.reduce((n, d) => n * d, 1) * elementSize(datatype);
    out.initial = readInitialState(model, modelDir, `${at}.initial_state.data_file`, first.data_file, bytes);
  }
  return out;
}

/** Triton reads initial_state data files from <model>/initial_state/, raw little-endian bytes. */
function readInitialState(model: string, modelDir: string, at: string, file: string, bytes: number): Uint8Array {
  const folder = path.join(modelDir, 'initial_state');
  const inside = resolveInside(modelDir, folder, file);
  if (!inside.ok) {
    refuse(model, at, inside.reason === 'outside' ? outsideMessage('data_file', file) : `initial_state/${file} does not exist`,
      `put the file in ${path.join(modelDir, 'initial_state')}`);
  }
  const size = fs.statSync(inside.path).size;
  if (size !== bytes) refuse(model, at, `initial_state/${file} has ${size} bytes; the state's data_type and dims need ${bytes}`);
  return new Uint8Array(fs.readFileSync(inside.path));
}
