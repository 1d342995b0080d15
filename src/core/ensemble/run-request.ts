/**
 * One ensemble request: steps start as soon as every ensemble tensor they read exists (several at
 * once when they are independent), each through its composing model's own infer() (so that model's
 * scheduler and dynamic batcher take it), and tensors travel between steps as the same byte views
 * (never copied). The first failing step fails the request with its step and model named, in
 * Triton's "in ensemble '<name>', ..." form; steps already running finish but nothing more starts.
 */
import { setMaxListeners } from 'node:events';
import type { InferRequest, InferResponse, InferTensor, LoadedModel } from '../executor/types.js';
import { InferError } from '../executor/types.js';
import type { ModelLookup } from '../server/model-lookup.js';
import { ProtocolError } from '../kserve/protocol-error.js';
import { whenAborted } from '../executor/cancellation.js';
import { reshapeForReader } from './batch-shape.js';
import { traceJsStep } from '../executor/trace-addon.js';
import type { EnsemblePlan, EnsembleStep } from './plan.js';
import { GatedSteps, type StepGates } from './step-gates.js';

/** A tensor on the ensemble's board, with the batch size it was made with (0: not batched). */
export interface BoardTensor {
  tensor: InferTensor;
  batch: number;
}

export interface RunResult {
  tensors: Map<string, BoardTensor>;
  /** Sum of the steps' durations (ns), and the time before the first step was handed on. */
  stepsNs: number;
  queueNs: number;
}

/** `gates`: the ensemble's max_inflight_requests, shared by all its requests. */
export function runEnsemble(
  plan: EnsemblePlan, lookup: ModelLookup, gates: StepGates, request: InferRequest, requestBatch: number, needed: ReadonlySet<number>,
): Promise<RunResult> {
  const start = process.hrtime.bigint();
  const board = new Map<string, BoardTensor>();
  for (const t of request.inputs) board.set(t.name, { tensor: t, batch: requestBatch });
  // Optional ensemble inputs the client left out: the steps reading them run without them (Triton).
  const absent = new Set([...plan.readers.keys()].filter((t) => !board.has(t) && !plan.writer.has(t)));
  const started = new Set<number>();
  let running = 0;
  let done = 0;
  let failed = false;
  let stepsNs = 0;
  let queueNs = -1;
  const gated = new GatedSteps(gates);
  return new Promise<RunResult>((resolve, reject) => {
    const { fail, detach } = failOnce(request.signal, reject, () => {
      failed = true;
      gated.leaveAll();
    });
    // A step's request, once its gate lets it in.
    const run = (step: EnsembleStep, release: () => void): void => {
      if (failed) return release();
      const stepStart = process.hrtime.bigint();
      if (queueNs < 0) queueNs = Number(stepStart - start);
      runStep(lookup, step, board, request).finally(release).then(
        (outputs) => {
          running -= 1;
          done += 1;
          stepsNs += Number(process.hrtime.bigint() - stepStart);
          for (const [tensor, value] of outputs) board.set(tensor, value);
          if (failed) return;
          if (done === needed.size) {
            detach();
            resolve({ tensors: board, stepsNs, queueNs: Math.max(queueNs, 0) });
          } else {
            launchReady();
          }
        },
        (err: unknown) => {
          running -= 1;
          fail(stepError(plan, step, err));
        },
      );
    };
    const launchReady = (): void => {
      for (const index of needed) {
        if (failed) return;
        if (started.has(index)) continue;
        const step = plan.steps[index]!;
        if (!step.inputs.every(([, tensor]) => board.has(tensor) || absent.has(tensor))) continue;
        started.add(index);
        running += 1;
        gated.enter(index, (release) => run(step, release));
      }
      if (!failed && running === 0 && done < needed.size) {
        fail(new InferError(`in ensemble '${plan.name}', unexpected deadlock, at least one output is not set while no more ensemble steps can be made`, 'INTERNAL'));
      }
    };
    if (failed) return;
    if (needed.size === 0) {
      detach();
      resolve({ tensors: board, stepsNs: 0, queueNs: 0 });
    } else {
      launchReady();
    }
  });
}

async function runStep(lookup: ModelLookup, step: EnsembleStep, board: Map<string, BoardTensor>, parent: InferRequest): Promise<Map<string, BoardTensor>> {
  const model = lookup.resolve(step.modelName, step.modelVersion);
  const request = stepRequest(model, step, (tensor) => board.get(tensor), parent);
  const traced = traceJsStep(model, request);
  const response = model.infer(request);
  traced?.(response);
  return stepOutputs(model, step, request, await response);
}

/**
 * A step's request: the board tensors it reads (as the views they are), shaped for its model, with
 * the ensemble request's id, priority, timeout, signal and, as Triton passes a request's
 * correlation id and flags to every step, its sequence id and START/END flags (a stateful step
 * keeps its state by them; other models ignore them).
 */
export function stepRequest(model: LoadedModel, step: EnsembleStep, board: (tensor: string) => BoardTensor | undefined, parent: InferRequest): InferRequest {
  const batching = model.maxBatchSize > 0;
  const inputs: InferTensor[] = step.inputs.filter(([, tensor]) => board(tensor) !== undefined).map(([input, tensor]) => {
    const value = board(tensor)!;
    const meta = model.inputs.find((t) => t.name === input);
    const dims = meta ? (batching ? meta.shape.slice(1) : meta.shape) : value.tensor.shape;
    return { name: input, datatype: value.tensor.datatype, shape: reshapeForReader(dims, batching, value.batch, value.tensor.shape), data: value.tensor.data };
  });
  const request: InferRequest = { inputs, outputs: step.outputs.map(([output]) => output) };
  if (parent.id !== undefined) request.id = parent.id;
  if (parent.priority !== undefined) request.priority = parent.priority;
  if (parent.timeoutUs !== undefined) request.timeoutUs = parent.timeoutUs;
  if (parent.signal !== undefined) request.signal = parent.signal;
  if (parent.sequenceId !== undefined) request.sequenceId = parent.sequenceId;
  if (parent.sequenceStart !== undefined) request.sequenceStart = parent.sequenceStart;
  if (parent.sequenceEnd !== undefined) request.sequenceEnd = parent.sequenceEnd;
  if (parent.trace !== undefined) request.parentTrace = parent.trace;
  return request;
}

/** The ensemble tensors a step's response writes, with the batch size it ran with. */
export function stepOutputs(model: LoadedModel, step: EnsembleStep, request: InferRequest, response: InferResponse): Map<string, BoardTensor> {
  const batch = model.maxBatchSize > 0 ? (request.inputs[0]?.shape[0] ?? 0) : 0;
  const produced = new Map<string, BoardTensor>();
  for (const [output, tensor] of step.outputs) {
    const t = response.outputs.find((o) => o.name === output);
    if (!t) throw new InferError(`model '${model.name}' returned no output '${output}'`, 'BACKEND');
    produced.set(tensor, { tensor: { ...t, name: tensor }, batch });
  }
  return produced;
}

/**
 * The failure path of an ensemble request: the first failure rejects it, once (`onFail` marks it
 * failed, so nothing more starts). A client that goes away fails it at once: the composing models
 * drop the steps they still queue (each step carries the same signal). `detach` stops listening.
 */
export function failOnce(signal: AbortSignal | undefined, reject: (err: InferError) => void, onFail: () => void): { fail(err: InferError): void; detach(): void } {
  let done = false;
  let detach = (): void => undefined;
  const fail = (err: InferError): void => {
    if (done) return;
    done = true;
    onFail();
    detach();
    reject(err);
  };
  detach = whenAborted(signal, fail);
  // Each step request running listens to this signal until it ends: a stream's many at once are
  // no leak, so Node's warning past 10 listeners would only mislead.
  if (signal) setMaxListeners(0, signal);
  return { fail, detach: () => detach() };
}

/** A step's failure as the ensemble reports it: Triton's prefix, then the step and its model. */
export function stepError(plan: EnsemblePlan, step: EnsembleStep, err: unknown): InferError {
  const where = `in ensemble '${plan.name}', step ${step.index} (model '${step.modelName}'${step.modelVersion ? ` version ${step.modelVersion}` : ''}): `;
  if (err instanceof InferError) return new InferError(where + err.message, err.failure);
  if (err instanceof ProtocolError) {
    // The composing model is not (or no longer) served: the ensemble cannot run now.
    const failure = err.httpStatus === 400 ? 'INVALID_ARGUMENT' : err.httpStatus === 404 || err.httpStatus === 503 ? 'UNAVAILABLE' : 'INTERNAL';
    return new InferError(where + err.message, failure);
  }
  return new InferError(where + (err instanceof Error ? err.message : String(err)), 'BACKEND');
}
