/**
 * The one request check for models that JS runs (ensembles, Python-backend models): the native
 * core's Normalize (native/src/executor/normalize.cc), reached through the addon, so a bad request
 * gets the same words from these models as from a native one.
 */
import { toBindingRequest } from './binding-request.js';
import { failureOf } from './failure-reasons.js';
import { loadNativeAddon } from './native.js';
import { InferError, type InferRequest, type TensorMetadata } from './types.js';

export interface RequestContract {
  name: string;
  version: string;
  /** Config max_batch_size; > 0 means shapes start with the batch dimension. */
  maxBatchSize: number;
  /** The largest batch one request may carry. */
  maxRequestBatch: number;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  /** Inputs that may be omitted (config `optional: true`). */
  optionalInputs: ReadonlySet<string>;
  /** A sequence model (sequence_batching): a request needs an id and one batch row. */
  sequence?: boolean;
}

/** A sequence model's request: its id as a key (7 and "7" apart) and as Triton prints it, and its flags. */
export interface SequenceStep {
  key: string;
  text: string;
  start: boolean;
  end: boolean;
}

export interface CheckedRequest {
  /** Batch rows (1 for models without a batch dimension). */
  rows: number;
  /** Model output indexes to answer with, in the client's order (all outputs when it named none). */
  outputIndexes: number[];
  /** Set for a sequence model. */
  sequence?: SequenceStep;
}

type NativeContract = Omit<RequestContract, 'inputs' | 'optionalInputs'> & { inputs: Array<TensorMetadata & { optional: boolean }> };
type NativeCheck = (contract: NativeContract, ...request: unknown[]) => { rows: number; outputs: number[]; sequence?: SequenceStep } | { reason: number; message: string };
interface NativeRequestCheck {
  check: NativeCheck;
  sequenceStartMissing(model: string, idText: string): string;
  sequenceQueueFull(model: string, idText: string): string;
  /** The native sequence batcher's bound on one sequence's waiting requests. */
  queuedPerSequence: number;
}

let native: NativeRequestCheck | undefined;
const addon = (): NativeRequestCheck => (native ??= loadNativeAddon().requestCheck as NativeRequestCheck);
const prepared = new WeakMap<RequestContract, NativeContract>();

function nativeContract(contract: RequestContract): NativeContract {
  let out = prepared.get(contract);
  if (!out) {
    out = {
      name: contract.name, version: contract.version, maxBatchSize: contract.maxBatchSize, maxRequestBatch: contract.maxRequestBatch, sequence: contract.sequence,
      inputs: contract.inputs.map((t) => ({ ...t, optional: contract.optionalInputs.has(t.name) })),
      outputs: contract.outputs,
    };
    prepared.set(contract, out);
  }
  return out;
}

/** Checks `request` against `contract`; throws the InferError Normalize words, in Triton's wording. */
export function checkRequest(contract: RequestContract, request: InferRequest): CheckedRequest {
  const b = toBindingRequest(request);
  // The sequence parameters too: models without sequence_batching ignore them, but a bad one is refused as for every model.
  const result = addon().check(nativeContract(contract), b.names, b.datatypes, b.shapes, b.datas, b.outputs, request?.priority, request?.timeoutUs,
    request?.sequenceId, request?.sequenceStart, request?.sequenceEnd);
  if ('reason' in result) throw new InferError(result.message, failureOf(result.reason).name);
  return { rows: result.rows, outputIndexes: result.outputs, sequence: result.sequence };
}

/** The refusal of a step of a sequence the model does not hold (no START, or it ended or went idle). */
export function sequenceStartMissing(model: string, step: SequenceStep): InferError {
  return new InferError(addon().sequenceStartMissing(model, step.text), 'INVALID_ARGUMENT');
}

/** How many requests one sequence may have waiting (the native batcher's bound), and the refusal past it. */
export function queuedPerSequence(): number {
  return addon().queuedPerSequence;
}

export function sequenceQueueFull(model: string, step: SequenceStep): InferError {
  return new InferError(addon().sequenceQueueFull(model, step.text), 'QUEUE_FULL');
}
