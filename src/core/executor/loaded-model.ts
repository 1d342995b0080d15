/**
 * A loaded model: the LoadedModel contract over one native model (scheduler + engine
 * sessions). Requests cross into native code as views over the caller's bytes, where the
 * native core's Normalize checks them as it checks every front end's; the caller's tensors stay referenced until the answer arrives. Answers come
 * back one native call per finished batch.
 */
import type { NativeModel, NativeResult, NativeStats } from './executor-addon.js';
import type {
  CompileReport,
  EngineName,
  InferRequest,
  InferResponse,
  InferTensor,
  LoadedModel,
  LatencyMetrics,
  ModelStatistics,
  TensorMetadata,
} from './types.js';
import { InferError } from './types.js';
import { abortError, whenAborted } from './cancellation.js';
import { failureIndex, failureOf } from './failure-reasons.js';
import { toBindingRequest } from './binding-request.js';

interface Pending {
  request: InferRequest;  // keeps the input bytes alive while native code reads them
  outputIndexes: number[];
  resolve: (response: InferResponse) => void;
  reject: (error: InferError) => void;
}

export interface ModelDescription {
  name: string;
  version: string;
  engine: EngineName;
  modelFile: string;
  maxBatchSize: number;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  optionalInputs: ReadonlySet<string>;
}

export class ExecutorModel implements LoadedModel {
  readonly name: string;
  readonly version: string;
  readonly engine: EngineName;
  readonly modelFile: string;
  readonly maxBatchSize: number;
  readonly inputs: TensorMetadata[];
  readonly outputs: TensorMetadata[];
  readonly optionalInputs: ReadonlySet<string>;
  readonly gears: number[];
  readonly instanceCount: number;
  private native: NativeModel | undefined;
  /** Output index by name, for answering requested outputs in the client's order (Normalize checked the names). */
  private readonly outputIndex: Map<string, number>;
  private readonly pending = new Map<number, Pending>();
  private nextToken = 1;
  /** Native results that matched no pending request (must stay 0: each request answers once). */
  unmatchedResults = 0;
  private unloading: Promise<void> | undefined;
  private resolveUnload: (() => void) | undefined;

  /** Built by loadModel(); `attach` wires the native model once it exists. */
  constructor(description: ModelDescription, gears: number[], instanceCount: number) {
    this.name = description.name;
    this.version = description.version;
    this.engine = description.engine;
    this.modelFile = description.modelFile;
    this.maxBatchSize = description.maxBatchSize;
    this.inputs = description.inputs;
    this.outputs = description.outputs;
    this.optionalInputs = description.optionalInputs;
    this.gears = gears;
    this.instanceCount = instanceCount;
    this.outputIndex = new Map(description.outputs.map((t, i) => [t.name, i]));
  }

  nativeModel(): NativeModel | undefined {
    // Sequence models too: the native routes read sequence parameters and queue their requests in
    // the model's sequence batcher, as infer() does.
    return this.unloading ? undefined : this.native;
  }

  attach(native: NativeModel): void {
    this.native = native;
  }

  /** The completion callback handed to the native loader: one call per finished batch. */
  readonly onComplete = (results: NativeResult[] | null): void => {
    if (results === null) {
      this.native = undefined;
      this.resolveUnload?.();
      return;
    }
    for (const result of results) {
      const entry = this.pending.get(result[0]);
      if (!entry) {
        this.unmatchedResults += 1;
        continue;
      }
      this.pending.delete(result[0]);
      // Traced, and received by a native front end: the trace goes back with the answer (trace-addon.ts).
      if (result[3] && entry.request.received) entry.request.received.trace = result[3];
      if (result[1] === 0) entry.resolve(this.response(entry, result[2] as Array<Uint8Array | number[] | null>));
      else entry.reject(new InferError(result[2] as string, failureOf(result[1]).name));
    }
  };

  infer(request: InferRequest): Promise<InferResponse> {
    const native = this.native;
    if (!native || this.unloading) {
      return Promise.reject(new InferError(`model '${this.name}' version ${this.version} is not loaded`, 'UNAVAILABLE'));
    }
    const token = this.nextToken++;
    const b = toBindingRequest(request);
    const signal = request.signal;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    let queued: ReturnType<NativeModel['infer']>;
    try {
      queued = native.infer(token, b.names, b.datatypes, b.shapes, b.datas, b.outputs, request?.priority, request?.timeoutUs,
        request?.sequenceId, request?.sequenceStart, request?.sequenceEnd, signal !== undefined, request?.parentTrace && [request.parentTrace.id, request.parentTrace.timestamps, request.parentTrace.tensors],
        request?.received && [request.received.startNs, request.received.endNs, request.received.protocol], request?.traceparent, request?.id);
    } catch (err) {
      // The binding refuses arguments of the wrong JS types (data that is not a Uint8Array).
      return Promise.reject(new InferError(`${(err as Error).message} in the request for model '${this.name}'`, 'INTERNAL'));
    }
    if (Array.isArray(queued)) return Promise.reject(new InferError(queued[1], failureOf(queued[0]).name));
    // A caller that goes away takes the request out of the native queue (the answer says so).
    const handle = queued;
    const detach = handle ? whenAborted(signal, (err) => native.cancel(handle, failureIndex(err.failure))) : undefined;
    const outputIndexes = b.outputs ? b.outputs.map((name) => this.outputIndex.get(name)!) : this.outputs.map((_, i) => i);
    return new Promise<InferResponse>((resolve, reject) => {
      this.pending.set(token, detach ? { request, outputIndexes, resolve: (r) => { detach(); resolve(r); }, reject: (e) => { detach(); reject(e); } } : { request, outputIndexes, resolve, reject });
    });
  }

  private response(entry: Pending, outputs: Array<Uint8Array | number[] | null>): InferResponse {
    const tensors: InferTensor[] = entry.outputIndexes.map((i) => ({
      name: this.outputs[i]!.name,
      datatype: this.outputs[i]!.datatype,
      shape: outputs[2 * i + 1] as number[],
      data: outputs[2 * i] as Uint8Array,
    }));
    const response: InferResponse = { modelName: this.name, modelVersion: this.version, outputs: tensors };
    if (entry.request.id !== undefined) response.id = entry.request.id;
    return response;
  }

  stats(): ModelStatistics {
    const s: NativeStats = this.native ? this.native.stats() : emptyStats();
    return { name: this.name, version: this.version, ...s };
  }

  /** The native scheduler observes the summaries; its models answer once a request (no first-response histogram). */
  latencyMetrics(): LatencyMetrics {
    return {
      enable: (which) => {
        if (which.summaries) this.native?.enableLatencySummaries();
      },
      readSummaries: (quantiles) => this.native?.latencySummaries(quantiles),
    };
  }

  pendingCount(): number {
    return this.native ? this.native.pendingCount() : 0;
  }

  async compile(shapes: Record<string, number[]>): Promise<CompileReport> {
    const native = this.requireNative();
    for (const name of Object.keys(shapes)) {
      if (!this.inputs.some((t) => t.name === name)) {
        throw new InferError(`unexpected input '${name}' in the shapes to compile for model '${this.name}'`);
      }
    }
    const report = await native.compile(Object.entries(shapes).map(([name, shape]) => ({ name, shape })));
    return { shapes, compileMs: report.compileMs, arenaBytes: report.arenaBytes, cached: report.cached };
  }

  unload(): Promise<void> {
    if (this.unloading) return this.unloading;
    const native = this.native;
    if (!native) return Promise.resolve();
    this.unloading = new Promise<void>((resolve) => {
      this.resolveUnload = resolve;
    });
    native.unload();
    return this.unloading;
  }

  private requireNative(): NativeModel {
    if (!this.native || this.unloading) throw new InferError(`model '${this.name}' version ${this.version} is not loaded`, 'UNAVAILABLE');
    return this.native;
  }
}

function emptyStats(): NativeStats {
  const zero = () => ({ count: 0, ns: 0 });
  return {
    last_inference: 0,
    inference_count: 0,
    execution_count: 0,
    inference_stats: {
      success: zero(), fail: zero(), queue: zero(), compute_input: zero(), compute_infer: zero(), compute_output: zero(),
    },
    batch_stats: [],
  };
}
