/**
 * An ensemble as a LoadedModel: requests are checked against the ensemble's own config (Triton's
 * request wording, shared with every model), run by runEnsemble over the composing models found
 * through the server's ModelLookup, and answered with only the outputs the client asked for. It
 * has no native handle: the native HTTP front end hands its requests to JS.
 */
import type { ModelConfig } from '../config/model-config.js';
import { datatypeFromConfig } from '../kserve/datatypes.js';
import type {
  CompileReport, DecoupledResponse, InferRequest, InferResponse, InferTensor, LatencyMetrics, LoadedModel, ModelStatistics, TensorMetadata,
} from '../executor/types.js';
import { JsLatencyMetrics } from '../executor/js-latency-metrics.js';
import { decoupledRefusal } from '../executor/decoupled.js';
import { InferError } from '../executor/types.js';
import { checkRequest, type RequestContract } from '../executor/check-request.js';
import type { ModelLookup } from '../server/model-lookup.js';
import { reshapeForReader } from './batch-shape.js';
import { EnsembleStats } from './ensemble-stats.js';
import { neededSteps, type EnsemblePlan } from './plan.js';
import { runEnsemble, type BoardTensor } from './run-request.js';
import { runDecoupledEnsemble } from './run-decoupled.js';
import { StepGates } from './step-gates.js';
import { holdFeeders } from './upstream-holds.js';

export class EnsembleModel implements LoadedModel {
  readonly name: string;
  readonly engine = 'ensemble' as const;
  readonly maxBatchSize: number;
  readonly inputs: TensorMetadata[];
  readonly outputs: TensorMetadata[];
  readonly optionalInputs: ReadonlySet<string>;
  readonly gears: number[] = [];
  /** An ensemble has no instances of its own (its composing models do). */
  readonly instanceCount = 0;
  private readonly contract: RequestContract;
  private readonly statistics: EnsembleStats;
  /** Triton's latency summaries and first-response histogram (--metrics-config), once the server asks for them. */
  private readonly latency: JsLatencyMetrics;
  /** max_inflight_requests at each step, across all of this ensemble's requests. */
  private readonly gates: StepGates;
  private inFlight = 0;
  private unloading = false;
  private drained?: () => void;

  /**
   * `decoupled`: a step runs a decoupled model, so the ensemble answers as one (Triton): any number
   * of responses a request, through inferDecoupled (run-decoupled.ts).
   */
  constructor(config: ModelConfig, readonly version: string, private readonly plan: EnsemblePlan, private readonly lookup: ModelLookup,
    readonly decoupled = false) {
    this.name = plan.name;
    this.maxBatchSize = Number(config.max_batch_size ?? 0);
    const describe = (t: { name: string; data_type: string; dims: number[] }): TensorMetadata => ({
      name: t.name,
      datatype: datatypeFromConfig(t.data_type as never) ?? 'BYTES',
      shape: this.maxBatchSize > 0 ? [-1, ...t.dims] : [...t.dims],
    });
    this.inputs = (config.input ?? []).map(describe);
    this.outputs = (config.output ?? []).map(describe);
    this.optionalInputs = new Set((config.input ?? []).filter((t) => t.optional).map((t) => t.name));
    this.contract = {
      name: this.name, version, maxBatchSize: this.maxBatchSize, maxRequestBatch: this.maxBatchSize,
      inputs: this.inputs, outputs: this.outputs, optionalInputs: this.optionalInputs,
    };
    this.gates = new StepGates(plan.steps.length, plan.maxInflightRequests, holdFeeders(plan, lookup));
    this.latency = new JsLatencyMetrics(decoupled);
    this.statistics = new EnsembleStats(this.name, version, this.latency);
  }

  async infer(request: InferRequest): Promise<InferResponse> {
    if (this.decoupled) throw decoupledRefusal(this.name, 'gebe');
    return this.track(request, async (wanted, batch, start) => {
      const run = await runEnsemble(this.plan, this.lookup, this.gates, request, batch, neededSteps(this.plan, wanted.map((t) => t.name)));
      const response = this.response(request, wanted, batch, (t) => run.tensors.get(t));
      this.statistics.success(batch, Number(process.hrtime.bigint() - start), run.queueNs, run.stepsNs);
      return response;
    });
  }

  async inferDecoupled(request: InferRequest, respond: (r: DecoupledResponse) => void): Promise<void> {
    if (!this.decoupled) {
      respond({ response: await this.infer(request), final: true });
      return;
    }
    const onResponse = this.latency.timed(respond);
    await this.track(request, async (wanted, batch, start) => {
      const names = wanted.map((t) => t.name);
      await runDecoupledEnsemble(this.plan, this.lookup, this.gates, request, batch, neededSteps(this.plan, names), names,
        (board) => onResponse({ response: this.response(request, wanted, batch, board), final: false }),
        (error) => onResponse({ error, final: false }));
      onResponse({ final: true });
      const ns = Number(process.hrtime.bigint() - start);
      this.statistics.success(batch, ns, 0, ns);
    });
  }

  /** A request's bookkeeping: refused while unloading, checked, counted in flight, a failure counted in the statistics. */
  private async track<T>(request: InferRequest, run: (wanted: TensorMetadata[], batch: number, start: bigint) => Promise<T>): Promise<T> {
    if (this.unloading) throw new InferError(`model '${this.name}' version ${this.version} is not loaded`, 'UNAVAILABLE');
    const valid = checkRequest(this.contract, request);
    const start = process.hrtime.bigint();
    this.inFlight += 1;
    try {
      return await run(valid.outputIndexes.map((i) => this.outputs[i]!), this.maxBatchSize > 0 ? valid.rows : 0, start);
    } catch (err) {
      this.statistics.failure(Number(process.hrtime.bigint() - start));
      throw err;
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) this.drained?.();
    }
  }

  /** The requested outputs, read off a finished board and shaped for the client. */
  private response(request: InferRequest, wanted: TensorMetadata[], batch: number, board: (tensor: string) => BoardTensor | undefined): InferResponse {
    const outputs = wanted.map((meta): InferTensor => {
      const value = board(meta.name);
      if (!value) throw new InferError(`in ensemble '${this.name}', unexpected deadlock, at least one output is not set while no more ensemble steps can be made`, 'INTERNAL');
      const dims = this.maxBatchSize > 0 ? meta.shape.slice(1) : meta.shape;
      return { name: meta.name, datatype: value.tensor.datatype, shape: reshapeForReader(dims, batch !== 0, value.batch, value.tensor.shape), data: value.tensor.data };
    });
    const response: InferResponse = { modelName: this.name, modelVersion: this.version, outputs };
    if (request.id !== undefined) response.id = request.id;
    return response;
  }

  stats(): ModelStatistics {
    return this.statistics.snapshot();
  }

  latencyMetrics(): LatencyMetrics {
    return this.latency;
  }

  /**
   * Backpressure from an outer ensemble's max_inflight_requests (upstream-holds.ts), when this
   * decoupled ensemble feeds one of its steps: its own decoupled steps are held, since their
   * responses are what it streams.
   */
  holdResponses(): () => void {
    const releases: Array<() => void> = [];
    for (const step of this.plan.steps) {
      let model: LoadedModel;
      try {
        model = this.lookup.resolve(step.modelName, step.modelVersion);
      } catch {
        continue;  // not loaded now: nothing of it to hold
      }
      if (model !== this && model.decoupled && model.holdResponses) releases.push(model.holdResponses());
    }
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      for (const release of releases) release();
    };
  }

  /** The ensemble's names for its composing models, in step order (for perf's breakdown). */
  composingModels(): string[] {
    return [...new Set(this.plan.steps.map((s) => s.modelName))];
  }

  pendingCount(): number {
    return this.inFlight;
  }

  async compile(): Promise<CompileReport> {
    throw new InferError(`model '${this.name}' is an ensemble: it compiles nothing itself; compile its composing models (${this.composingModels().join(', ')})`);
  }

  /** As every model: accepted requests finish, new ones are refused. */
  async unload(): Promise<void> {
    this.unloading = true;
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => (this.drained = resolve));
  }
}
