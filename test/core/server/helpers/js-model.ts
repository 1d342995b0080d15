/**
 * An in-JS LoadedModel for protocol tests only: it does what the executor contract says (checks
 * each request with the native core's one check, Normalize, through the test addon; counts
 * statistics; rejects when its queue is full) and computes with plain JS arithmetic, so the
 * HTTP/gRPC layers can be tested without an engine. End-to-end tests use the real executor with
 * real ONNX models.
 */
import '../../../helpers/test-addon.js';
import { checkRequest, type RequestContract } from '../../../../src/core/executor/check-request.js';
import { InferError, type InferRequest, type InferResponse, type InferTensor, type LoadedModel, type ModelStatistics, type TensorMetadata } from '../../../../src/core/executor/types.js';
import type { ModelConfig } from '../../../../src/core/config/model-config.js';
import { datatypeFromConfig } from '../../../../src/core/kserve/datatypes.js';

export type Compute = (inputs: Map<string, InferTensor>) => InferTensor[];

const zero = () => ({ count: 0, ns: 0 });

export class JsModel implements LoadedModel {
  readonly engine = 'cpu' as const;
  readonly gears: number[] = [];
  readonly instanceCount = 1;
  private pending = 0;
  unloaded = false;
  private readonly statistics: ModelStatistics;
  private readonly contract: RequestContract;
  /** Holds each request this long (ms) before computing. */
  delayMs = 0;
  /** While set, every admitted request waits for it: tests fill the queue deterministically. */
  gate?: Promise<void>;

  constructor(
    readonly name: string,
    readonly version: string,
    readonly maxBatchSize: number,
    readonly inputs: TensorMetadata[],
    readonly outputs: TensorMetadata[],
    private readonly compute: Compute,
    private readonly maxQueueSize = 0,
  ) {
    this.contract = { name, version, maxBatchSize, maxRequestBatch: maxBatchSize, inputs, outputs, optionalInputs: new Set() };
    this.statistics = {
      name, version, last_inference: 0, inference_count: 0, execution_count: 0,
      inference_stats: { success: zero(), fail: zero(), queue: zero(), compute_input: zero(), compute_infer: zero(), compute_output: zero() },
      batch_stats: [],
    };
  }

  async infer(request: InferRequest): Promise<InferResponse> {
    if (this.unloaded) throw new InferError(`model '${this.name}' is unloaded`, 'UNAVAILABLE');
    if (this.maxQueueSize > 0 && this.pending >= this.maxQueueSize) {
      this.statistics.inference_stats.fail.count++;
      throw new InferError(`Exceeds maximum queue size for model '${this.name}'`, 'QUEUE_FULL');
    }
    const start = process.hrtime.bigint();
    this.pending++;
    try {
      checkRequest(this.contract, request);
      const byName = new Map<string, InferTensor>();
      for (const t of request.inputs) byName.set(t.name, t);
      const batch = this.maxBatchSize > 0 ? request.inputs[0]!.shape[0]! : 1;
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      if (this.gate) await this.gate;
      const outputs = this.compute(byName).filter((o) => !request.outputs || request.outputs.includes(o.name));
      const ns = Number(process.hrtime.bigint() - start);
      const s = this.statistics;
      s.inference_stats.success.count++;
      s.inference_stats.success.ns += ns;
      s.inference_stats.queue.count++;
      s.inference_stats.compute_infer.count++;
      s.inference_stats.compute_infer.ns += ns;
      s.inference_stats.compute_input.count++;
      s.inference_stats.compute_output.count++;
      s.inference_count += batch;
      s.execution_count++;
      s.last_inference = Date.now();
      return { id: request.id, modelName: this.name, modelVersion: this.version, outputs };
    } catch (err) {
      if (err instanceof InferError) this.statistics.inference_stats.fail.count++;
      throw err;
    } finally {
      this.pending--;
    }
  }

  stats(): ModelStatistics {
    return structuredClone(this.statistics);
  }

  pendingCount(): number {
    return this.pending;
  }

  async compile(): Promise<never> {
    throw new Error('compile is not part of the protocol tests');
  }

  async unload(): Promise<void> {
    while (this.pending > 0) await new Promise((r) => setTimeout(r, 1));
    this.unloaded = true;
  }
}

/** Builds a JsModel from a config: every output copies the input of the same index (identity). */
export function identityFromConfig(name: string, version: string, config: ModelConfig, maxQueueSize = 0): JsModel {
  const maxBatch = config.max_batch_size ?? 0;
  const meta = (t: { name: string; data_type: string; dims: number[] }): TensorMetadata => ({
    name: t.name,
    datatype: datatypeFromConfig(t.data_type)!,
    shape: maxBatch > 0 ? [-1, ...t.dims] : [...t.dims],
  });
  const inputs = (config.input ?? []).map(meta);
  const outputs = (config.output ?? []).map(meta);
  return new JsModel(name, version, maxBatch, inputs, outputs, (byName) =>
    outputs.map((o, i) => {
      const src = byName.get(inputs[i]!.name)!;
      return { name: o.name, datatype: o.datatype, shape: [...src.shape], data: src.data.slice() };
    }), maxQueueSize);
}
