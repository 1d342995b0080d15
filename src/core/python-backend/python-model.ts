/**
 * A Python-backend model (backend "python", model.py) as a LoadedModel: one stub process per
 * instance (instance_group count), a queue in front of them, and — where the config has
 * dynamic_batching — batching as Triton's python backend sees it: an instance that becomes free
 * takes every queued request that fits max_batch_size and gets them in one execute(requests)
 * call (no waiting for more: max_queue_delay_microseconds and preferred sizes are not used).
 * Without dynamic_batching each execute() gets one request. With sequence_batching, requests go
 * through the model's sequences (sequences.ts) instead of the one queue; with iterative_sequence
 * each request is a sequence of its own, run again while model.py reschedules it.
 */
import type { ModelConfig } from '../config/model-config.js';
import { checkRequest, type RequestContract, type SequenceStep } from '../executor/check-request.js';
import type { FailureName } from '../executor/failure-reasons.js';
import {
  InferError, type CompileReport, type DecoupledResponse, type InferRequest, type InferResponse, type LatencyMetrics, type LoadedModel, type ModelStatistics,
  type TensorMetadata,
} from '../executor/types.js';
import { JsLatencyMetrics } from '../executor/js-latency-metrics.js';
import { holdTracedRequest } from './traced-requests.js';
import { otelContext } from '../executor/otel-ids.js';
import { decoupledRefusal } from '../executor/decoupled.js';
import { abortError, whenAborted } from '../executor/cancellation.js';
import type { Logger } from '../server/logger.js';
import { GebeError } from '../../errors.js';
import type { InstanceRateLimit, RateLimiter } from '../executor/rate-limiter.js';
import { ModelStats } from './model-stats.js';
import { checkOutputs } from './output-check.js';
import { MAX_PARAMETER_BYTES, type ParameterMap } from './parameters.js';
import { SequenceSlots } from './sequences.js';
import { StubProcess, type ExecuteAnswer, type StubOptions } from './stub-process.js';

export interface PythonModelSpec {
  name: string;
  version: string;
  maxBatchSize: number;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  optionalInputs: ReadonlySet<string>;
  dynamicBatching: boolean;
  /** model_transaction_policy { decoupled: true }: responses come through each request's sender. */
  decoupled: boolean;
  /** How long unload waits for running requests and finalize() before killing the processes. */
  unloadGraceMs: number;
  /**
   * sequence_batching: how long a sequence is held without a request (max_sequence_idle_microseconds),
   * and whether sequences are iterative (iterative_sequence: each request one, run again while
   * model.py reschedules it).
   */
  sequence?: { idleMs: number; iterative: boolean };
  log: Logger;
  /** The server's rate limiter and each instance's needs (instance order): execute() runs while they are held. */
  rateLimit?: { limiter: RateLimiter; needs: InstanceRateLimit[] };
}

interface Queued {
  request: InferRequest;
  /** The request's key while model.py has it: a cancel message names it, a decoupled response too. */
  key?: number;
  onResponse?(r: DecoupledResponse): void;
  /** The instance whose process answers it, while a decoupled request is open. */
  instance?: Instance;
  /** Rows of the request (its batch dimension), 1 when max_batch_size is 0. */
  rows: number;
  /** A sequence model's request: its sequence and flags. */
  step?: SequenceStep;
  enqueued: bigint;
  resolve(response?: InferResponse): void;
  reject(err: InferError): void;
  /** Stops listening for the request's cancellation (it left the queue). */
  detach(): void;
  /** model.py rescheduled it in the execute() that just ran (TRITONSERVER_REQUEST_RELEASE_RESCHEDULE). */
  rescheduled?: boolean;
  /** A rescheduled decoupled request waiting for its next execute() (it stays open meanwhile). */
  waiting?: boolean;
}

interface Instance {
  name: string;
  stub?: StubProcess;
  starting?: Promise<StubProcess>;
  running: number;
  /** Its id at the server's rate limiter, when there is one. */
  rateLimitId?: number;
}


/** pb_utils.TritonError codes (NOT_FOUND, INVALID_ARG, UNAVAILABLE, UNSUPPORTED) → failure reasons. */
const FAILURE_BY_CODE: Record<number, FailureName> = { 2: 'NOT_FOUND', 3: 'INVALID_ARGUMENT', 4: 'UNAVAILABLE', 5: 'UNSUPPORTED' };

export class PythonModel implements LoadedModel {
  readonly engine = 'python' as const;
  readonly gears: number[] = [];
  private readonly queue: Queued[] = [];
  /** Triton's latency summaries and first-response histogram (--metrics-config), once the server asks for them. */
  private readonly latency: JsLatencyMetrics;
  private readonly stats_: ModelStats;
  private readonly contract: RequestContract;
  private unloading?: Promise<void>;
  private idleWaiters: Array<() => void> = [];
  /** Ensemble holds on the processes' responses (holdResponses). */
  private holds = 0;
  /** Decoupled requests handed to execute() whose final response has not come yet, by key. */
  private readonly open = new Map<number, Queued>();
  private nextKey = 1;
  /** The next implicit sequence of an iterative model (its requests carry no sequence id). */
  private nextIterative = 1;
  /** Open decoupled requests waiting in a sequence's queue after a reschedule (counted once as pending). */
  private waitingOpen = 0;
  /** A sequence model's requests wait here, not in `queue`. */
  private readonly sequences?: SequenceSlots<Queued & { step: SequenceStep }, Instance>;

  private constructor(
    private readonly spec: PythonModelSpec,
    private readonly instances: Instance[],
    private readonly stubOptions: (instance: string) => StubOptions,
  ) {
    // An iterative model's request needs no sequence id: it is a sequence of its own.
    this.contract = { ...spec, maxRequestBatch: spec.maxBatchSize, sequence: spec.sequence !== undefined && !spec.sequence.iterative };
    this.latency = new JsLatencyMetrics(spec.decoupled);
    this.stats_ = new ModelStats(this.latency);
    if (spec.sequence) this.sequences = new SequenceSlots(spec.name, instances, spec.sequence.idleMs);
  }

  /** Starts every instance's process (initialize() runs in each); any failure fails the load. */
  static async load(spec: PythonModelSpec, instanceNames: string[], stubOptions: (instance: string) => StubOptions): Promise<PythonModel> {
    const model = new PythonModel(spec, instanceNames.map((name) => ({ name, running: 0 })), stubOptions);
    model.registerRateLimits();
    const started = await Promise.allSettled(model.instances.map((i) => model.start(i)));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await Promise.all(model.instances.map((i) => i.stub?.finalize(0)));
      model.unregisterRateLimits();
      throw failed.reason;
    }
    return model;
  }

  /** Each instance's needs, registered with the server's rate limiter; a need it cannot meet fails the load. */
  private registerRateLimits(): void {
    const limit = this.spec.rateLimit;
    if (!limit) return;
    try {
      // A Python instance runs on the host: its per-device resources count on device 0.
      for (const [i, instance] of this.instances.entries()) instance.rateLimitId = limit.limiter.register({ ...(limit.needs[i] ?? { resources: [], priority: 0 }), device: 0 });
    } catch (err) {
      this.unregisterRateLimits();
      throw new GebeError(`model '${this.name}': ${(err as Error).message}`);
    }
  }

  private unregisterRateLimits(): void {
    for (const instance of this.instances) {
      if (instance.rateLimitId !== undefined) this.spec.rateLimit!.limiter.unregister(instance.rateLimitId);
      instance.rateLimitId = undefined;
    }
  }

  get name(): string { return this.spec.name; }
  get version(): string { return this.spec.version; }
  get maxBatchSize(): number { return this.spec.maxBatchSize; }
  get inputs(): TensorMetadata[] { return this.spec.inputs; }
  get outputs(): TensorMetadata[] { return this.spec.outputs; }
  get instanceCount(): number { return this.instances.length; }
  get optionalInputs(): ReadonlySet<string> { return this.spec.optionalInputs; }
  get decoupled(): boolean { return this.spec.decoupled; }

  infer(request: InferRequest): Promise<InferResponse> {
    if (this.spec.decoupled) return Promise.reject(decoupledRefusal(this.name, 'gebe'));
    return this.enqueue(request) as Promise<InferResponse>;
  }

  inferDecoupled(request: InferRequest, onResponse: (r: DecoupledResponse) => void): Promise<void> {
    if (!this.spec.decoupled) return this.infer(request).then((response) => onResponse({ response, final: true }));
    return this.enqueue(request, this.latency.timed(onResponse)) as Promise<void>;
  }

  private enqueue(request: InferRequest, onResponse?: (r: DecoupledResponse) => void): Promise<InferResponse | void> {
    if (this.unloading) return Promise.reject(new InferError(`model '${this.name}' version ${this.version} is not loaded`, 'UNAVAILABLE'));
    let valid;
    try {
      valid = checkRequest(this.contract, request);
    } catch (err) {
      return Promise.reject(err);
    }
    const rows = valid.rows;
    const parameterBytes = request.parameters ? Buffer.byteLength(JSON.stringify(request.parameters)) : 0;
    if (parameterBytes > MAX_PARAMETER_BYTES) {
      return Promise.reject(new InferError(`the request's parameters take ${parameterBytes} bytes as JSON, more than the ${MAX_PARAMETER_BYTES} a Python model takes`, 'INVALID_ARGUMENT'));
    }
    if (request.signal?.aborted) return Promise.reject(abortError(request.signal));
    return new Promise<InferResponse | void>((settleOk, settleFailed) => {
      const step = valid.sequence ?? (this.spec.sequence?.iterative ? this.iterativeStep() : undefined);
      // A traced request is held while the model has it: its BLS requests may be traced as its children.
      const letGo = request.trace ? holdTracedRequest(request.trace) : undefined;
      const resolve = letGo ? (v: InferResponse | void) => (letGo(), settleOk(v)) : settleOk;
      const reject = letGo ? (e: unknown) => (letGo(), settleFailed(e)) : settleFailed;
      const queued: Queued = { request, rows, step, enqueued: process.hrtime.bigint(), resolve, reject, detach: () => undefined, onResponse };
      if (this.sequences) {
        const refused = this.sequences.admit(queued as Queued & { step: SequenceStep });
        if (refused) {
          this.stats_.request(false, 0, 0);
          reject(refused);
          return;
        }
      } else {
        this.queue.push(queued);
      }
      this.watchQueued(queued);
      this.dispatch();
    });
  }

  /**
   * An iterative model's request: a sequence of its own (Triton's iterative sequencer gives it an
   * id and START), which its later runs continue (no flags) until model.py stops rescheduling it.
   */
  private iterativeStep(): SequenceStep {
    const id = this.nextIterative++;
    return { key: `u:${id}`, text: String(id), start: true, end: false };
  }

  /** A client that goes away while its request waits takes it out of the queue (counted as failed). */
  private watchQueued(queued: Queued): void {
    queued.detach = whenAborted(queued.request.signal, (err) => {
      if (!this.unqueue(queued)) return;  // running already: it finishes, the front end drops the answer
      // A rescheduled decoupled request: a thread of model.py may still hold its sender.
      if (queued.waiting) queued.instance?.stub?.cancel(queued.key!);
      this.leaveOpen(queued);
      this.stats_.request(false, Number(process.hrtime.bigint() - queued.enqueued), 0);
      queued.reject(err);
      if (this.pendingCount() === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
  }

  /** A decoupled request is no longer open (nor waiting, if it waited to run again after a reschedule). */
  private leaveOpen(queued: Queued): void {
    if (queued.waiting) this.waitingOpen--;
    queued.waiting = false;
    if (queued.key !== undefined) this.open.delete(queued.key);
  }

  /** Takes a waiting request out of its queue; false when it is not waiting. */
  private unqueue(queued: Queued): boolean {
    if (this.sequences) return this.sequences.remove(queued as Queued & { step: SequenceStep });
    const at = this.queue.indexOf(queued);
    if (at >= 0) this.queue.splice(at, 1);
    return at >= 0;
  }

  stats(): ModelStatistics {
    return this.stats_.snapshot(this.name, this.version);
  }

  latencyMetrics(): LatencyMetrics {
    return this.latency;
  }

  pendingCount(): number {
    // A decoupled request stays pending from execute() until its final response.
    return this.queue.length + (this.sequences?.queued ?? 0) + (this.spec.decoupled ? this.open.size - this.waitingOpen : this.instances.reduce((n, i) => n + i.running, 0));
  }

  /** Python models compile nothing ahead of time. */
  async compile(shapes: Record<string, number[]>): Promise<CompileReport> {
    return { shapes, compileMs: 0, arenaBytes: 0, cached: true };
  }

  /** Rejects queued requests, lets running ones finish (bounded), runs finalize() and ends the processes. */
  /**
   * Ensemble backpressure (max_inflight_requests): the model's processes are not read while any
   * hold lasts, so a decoupled model's response sender blocks once its pipe is full, as Triton
   * blocks it. Unloading lifts every hold (the processes must answer finalize).
   */
  holdResponses(): () => void {
    if (this.unloading) return () => undefined;
    if (this.holds++ === 0) for (const instance of this.instances) instance.stub?.holdOutput(true);
    let held = true;
    return () => {
      if (!held || this.holds === 0) return;
      held = false;
      if (--this.holds === 0) for (const instance of this.instances) instance.stub?.holdOutput(false);
    };
  }

  unload(): Promise<void> {
    if (this.holds > 0) {
      this.holds = 0;
      for (const instance of this.instances) instance.stub?.holdOutput(false);
    }
    this.unloading ??= (async () => {
      for (const q of [...this.queue.splice(0), ...(this.sequences?.drain() ?? [])]) {
        q.detach();
        this.leaveOpen(q);
        q.reject(new InferError(`model '${this.name}' version ${this.version} is unloading`, 'UNAVAILABLE'));
      }
      const deadline = Date.now() + this.spec.unloadGraceMs;
      if (this.pendingCount() > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, this.spec.unloadGraceMs))),
        ]);
        clearTimeout(timer);
      }
      const remaining = Math.max(0, deadline - Date.now());
      await Promise.all(this.instances.map(async (i) => {
        const stub = i.stub ?? (await i.starting?.catch(() => undefined));
        await stub?.finalize(remaining);
      }));
      this.unregisterRateLimits();
    })();
    return this.unloading;
  }

  private start(instance: Instance): Promise<StubProcess> {
    instance.starting ??= StubProcess.start({
      ...this.stubOptions(instance.name),
      decoupled: this.spec.decoupled,
      iterative: this.spec.sequence?.iterative,
      onResponse: (key, answer, final) => this.onResponse(key, answer, final),
      onExit: (reason) => this.onExit(instance, reason),
    }).then(
      (stub) => {
        instance.stub = stub;
        instance.starting = undefined;
        if (this.holds > 0) stub.holdOutput(true);
        return stub;
      },
      (err: unknown) => {
        instance.starting = undefined;
        throw err;
      },
    );
    return instance.starting;
  }

  /** A process that ended while serving is started again, so the next request finds one. */
  private onExit(instance: Instance, reason: string): void {
    // Decoupled requests it left open get no more responses.
    for (const q of this.open.values()) {
      if (q.instance !== instance) continue;
      this.finish(q, false);
      q.reject(new InferError(`${reason} before it sent the final response of the request; a new process is started for the next request`, 'BACKEND'));
    }
    if (this.unloading || !instance.stub) return;
    instance.stub = undefined;
    this.spec.log.warn('Python model instance process ended; starting a new one', { model: this.name, instance: instance.name });
    this.start(instance).catch((err: Error) => this.spec.log.error('Python model instance failed to restart', { model: this.name, instance: instance.name, reason: err.message }));
  }

  private dispatch(): void {
    for (const instance of this.instances) {
      if (instance.running > 0) continue;
      if (this.sequences) {
        // As Triton's sequence batcher: up to max_batch_size sequences in one execute().
        const batch = this.sequences.take(instance, Math.max(1, this.spec.maxBatchSize));
        if (batch.length === 0) continue;
        for (const q of batch) q.detach();
        void this.run(instance, batch).finally(() => {
          for (const q of batch) this.afterStep(q as Queued & { step: SequenceStep });
          if (!this.unloading) this.dispatch();
        });
        continue;
      }
      if (this.queue.length === 0) return;
      void this.run(instance, this.takeBatch());
    }
  }

  /**
   * A sequence's request ran: a rescheduled one goes back first in its sequence's queue, its next
   * run without flags (Triton's iterative sequencer); an iterative one that was not rescheduled
   * ends its sequence; any other lets its sequence go on.
   */
  private afterStep(q: Queued & { step: SequenceStep }): void {
    const again = q.rescheduled === true;
    q.rescheduled = false;
    if (again && !this.unloading && !q.request.signal?.aborted && (!this.spec.decoupled || this.open.has(q.key!))) {
      q.detach();
      q.step = { ...q.step, start: false, end: false };
      this.sequences!.again(q);
      if (this.spec.decoupled) {
        q.waiting = true;
        this.waitingOpen++;
      }
      this.watchQueued(q);
      return;
    }
    if (this.spec.sequence?.iterative) q.step = { ...q.step, end: true };
    this.sequences!.done(q);
    if (!again) return;
    // Rescheduled, but the model is unloading or the client went away: it runs no more (a
    // decoupled one whose final response came meanwhile is done already).
    const error = this.unloading ? new InferError(`model '${this.name}' version ${this.version} is unloading`, 'UNAVAILABLE') : abortError(q.request.signal!);
    if (this.spec.decoupled) {
      if (!this.open.has(q.key!)) return;
      this.finish(q, false);
    } else {
      this.stats_.request(false, Number(process.hrtime.bigint() - q.enqueued), 0);
    }
    q.reject(error);
  }

  /** model.py rescheduled `q`: noted for afterStep when the model runs iterative sequences; else its error. */
  private rescheduled(q: Queued): InferError | undefined {
    if (this.spec.sequence?.iterative) {
      q.rescheduled = true;
      return undefined;
    }
    return new InferError(`model.py of '${this.name}' rescheduled a request (TRITONSERVER_REQUEST_RELEASE_RESCHEDULE), but the model has no sequence_batching { iterative_sequence: true }`, 'BACKEND');
  }

  private takeBatch(): Queued[] {
    const batch = this.takeBatchRows();
    for (const q of batch) q.detach();
    return batch;
  }

  private takeBatchRows(): Queued[] {
    const batch = [this.queue.shift()!];
    if (!this.spec.dynamicBatching) return batch;
    let rows = batch[0]!.rows;
    const limit = this.spec.maxBatchSize > 0 ? this.spec.maxBatchSize : 1;
    while (this.queue.length > 0 && rows + this.queue[0]!.rows <= limit) {
      const next = this.queue.shift()!;
      rows += next.rows;
      batch.push(next);
    }
    return batch;
  }

  private async run(instance: Instance, batch: Queued[]): Promise<void> {
    instance.running = batch.length;
    // Its rate_limiter resources first: the wait is the requests' queue time, as in Triton.
    const limiter = instance.rateLimitId !== undefined ? this.spec.rateLimit!.limiter : undefined;
    if (limiter) await limiter.acquire(instance.rateLimitId!);
    const started = process.hrtime.bigint();
    try {
      const stub = instance.stub?.alive ? instance.stub : await this.start(instance);
      const t0 = process.hrtime.bigint();
      for (const q of batch) {
        q.key ??= this.nextKey++;  // a rescheduled request keeps its key: model.py may still hold its sender
        if (q.waiting) {
          q.waiting = false;
          this.waitingOpen--;
        }
        if (this.spec.decoupled) {
          q.instance = instance;
          this.open.set(q.key, q);
        }
      }
      const running = stub.execute(batch.map((q) => ({
        id: q.request.id, key: q.key, inputs: q.request.inputs, outputs: q.request.outputs ?? [], parameters: q.request.parameters, timeoutUs: q.request.timeoutUs,
        trace: q.request.trace?.id, traceContext: q.request.trace?.otel && otelContext(q.request.trace.otel),
        sequence: q.step && { key: q.step.key, flags: (q.step.start ? 1 : 0) | (q.step.end ? 2 : 0) },
      })));
      // A client that goes away while model.py has its request (after the execute message, so the
      // stub knows the key): the request's is_cancelled() says so, even while execute() runs.
      for (const q of batch) q.detach = whenAborted(q.request.signal, () => stub.cancel(q.key!));
      const t1 = process.hrtime.bigint();
      let answers: ExecuteAnswer[];
      try {
        answers = await running;
      } catch (err) {
        // Triton's python backend words a failed execute() this way.
        throw new InferError(`Failed to process the request(s) for model instance '${instance.name}', message: ${(err as Error).message}`, 'BACKEND');
      } finally {
        if (!this.spec.decoupled) for (const q of batch) q.detach();
      }
      const t2 = process.hrtime.bigint();
      if (!this.spec.decoupled) batch.forEach((q, i) => this.answer(q, answers[i]!, started));
      else batch.forEach((q, i) => this.decoupledAnswer(q, answers[i]));
      const t3 = process.hrtime.bigint();
      this.stats_.execution(batch.reduce((n, q) => n + q.rows, 0), batch.length, {
        compute_input: Number(t1 - t0), compute_infer: Number(t2 - t1), compute_output: Number(t3 - t2),
      });
    } catch (err) {
      const error = err instanceof InferError ? err : new InferError((err as Error).message, 'BACKEND');
      const now = process.hrtime.bigint();
      for (const q of batch) {
        if (this.spec.decoupled && q.key !== undefined) {
          if (!this.open.has(q.key)) continue;  // its final response came, or its process's end failed it
          this.open.delete(q.key);
          q.detach();
        }
        this.stats_.request(false, Number(now - q.enqueued), 0);
        q.reject(error);
      }
    } finally {
      if (limiter) limiter.release(instance.rateLimitId!);
      instance.running = 0;
      if (this.pendingCount() === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      if (!this.unloading) this.dispatch();
    }
  }

  /** One response of a decoupled request: checked against the config, then handed on; the final one settles the request. */
  private onResponse(key: number, answer: ExecuteAnswer | undefined, final: boolean): void {
    const q = this.open.get(key);
    if (!q) return;  // a late response for a request that failed already
    let response: DecoupledResponse = { final };
    if (answer && 'error' in answer) {
      response.error = new InferError(answer.error, FAILURE_BY_CODE[answer.code ?? -1] ?? 'BACKEND');
    } else if (answer && 'outputs' in answer) {
      try {
        response.response = { id: q.request.id, modelName: this.name, modelVersion: this.version, outputs: checkOutputs(this.name, this.outputs, answer.outputs, q.request.outputs), ...withParameters(answer) };
      } catch (err) {
        response = { final, error: err instanceof InferError ? err : new InferError((err as Error).message, 'BACKEND') };
      }
    }
    q.onResponse?.(response);
    if (!final) return;
    this.finish(q, true);
    q.resolve();
  }

  /** A decoupled request is done (its final response came, or it failed): counted, and no longer open. */
  private finish(q: Queued, success: boolean): void {
    if (q.waiting) this.unqueue(q);  // its final response came while it waited to run again
    this.leaveOpen(q);
    q.detach();
    this.stats_.request(success, Number(process.hrtime.bigint() - q.enqueued), 0);
    if (this.pendingCount() === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** What execute() said of a decoupled request beside its responses: whether model.py rescheduled it. */
  private decoupledAnswer(q: Queued, answer: ExecuteAnswer | undefined): void {
    if (!answer || !('rescheduled' in answer) || !this.open.has(q.key!)) return;
    const refused = this.rescheduled(q);
    if (!refused) return;
    this.finish(q, false);
    q.reject(refused);
  }

  private answer(q: Queued, answer: ExecuteAnswer, started: bigint): void {
    const done = process.hrtime.bigint();
    try {
      if ('rescheduled' in answer) {
        const refused = this.rescheduled(q);
        if (refused) throw refused;
        return;
      }
      if ('error' in answer) throw new InferError(answer.error, FAILURE_BY_CODE[answer.code ?? -1] ?? 'BACKEND');
      const outputs = checkOutputs(this.name, this.outputs, answer.outputs, q.request.outputs);
      this.stats_.request(true, Number(done - q.enqueued), Number(started - q.enqueued));
      q.resolve({ id: q.request.id, modelName: this.name, modelVersion: this.version, outputs, ...withParameters(answer) });
    } catch (err) {
      this.stats_.request(false, Number(done - q.enqueued), 0);
      q.reject(err instanceof InferError ? err : new InferError((err as Error).message, 'BACKEND'));
    }
  }
}

/** A response's parameters from model.py (InferenceResponse(parameters=...)), when it set any. */
function withParameters(answer: { parameters?: ParameterMap }): Pick<InferResponse, 'parameters'> {
  return answer.parameters ? { parameters: answer.parameters } : {};
}
