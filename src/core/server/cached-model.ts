/**
 * A served model whose config enables `response_cache`, behind the server's response cache
 * (response-cache.ts): a request the cache holds an answer to is answered from it, without the
 * model; any other runs on the model and its successful answer is kept. Statistics follow
 * Triton's: a hit counts as a success (and a queue entry of no time) with its lookup as
 * `cache_hit`, not in inference_count, execution_count or the compute durations; a miss's lookup
 * and insertion time is `cache_miss`, the run is the model's own.
 *
 * It has no native handle, so the native front ends hand its requests to JS, where the cache is
 * (and the trace extension samples them in JS: a miss's run is that trace's child).
 */
import type {
  CompileReport, InferRequest, InferResponse, LatencyMetrics, LoadedModel, ModelStatistics, StatDuration, TraceLink,
} from '../executor/types.js';
import { JsLatencySummaries } from '../executor/latency-summaries.js';
import { cacheOwner, requestKey, type ResponseCache } from './response-cache.js';

/** What the caller's trace sampling decided for a run it did not trace: the model samples nothing more. */
const UNTRACED: TraceLink = { id: 0, timestamps: false, tensors: false };

/** Each load of a model version owns its own answers: a reload's new model never sees the old one's. */
let loads = 0;

export class CachedModel implements LoadedModel {
  private readonly owner: string;
  private hits = zero();
  private misses = zero();
  private lastHitMs = 0;
  /** Set once unloading begins: answers of runs still finishing are not kept. */
  private unloading = false;
  /** The cache_hit and cache_miss latency summaries, once the server asks for them. */
  private summaries?: JsLatencySummaries;

  constructor(private readonly model: LoadedModel, private readonly cache: ResponseCache) {
    this.owner = `${cacheOwner(model.name, model.version)}\u0000${++loads}`;
  }

  get name(): string { return this.model.name; }
  get version(): string { return this.model.version; }
  get engine(): LoadedModel['engine'] { return this.model.engine; }
  get maxBatchSize(): number { return this.model.maxBatchSize; }
  get inputs(): LoadedModel['inputs'] { return this.model.inputs; }
  get outputs(): LoadedModel['outputs'] { return this.model.outputs; }
  get optionalInputs(): LoadedModel['optionalInputs'] { return this.model.optionalInputs; }
  get gears(): number[] { return this.model.gears; }
  get instanceCount(): number { return this.model.instanceCount; }

  infer(request: InferRequest): Promise<InferResponse> {
    const start = process.hrtime.bigint();
    const key = requestKey(this.owner, request);
    const cached = this.cache.lookup(key);
    if (cached) {
      const hitNs = process.hrtime.bigint() - start;
      add(this.hits, hitNs);
      this.summaries?.observe('cache_hit', Number(hitNs));
      this.lastHitMs = Date.now();
      return Promise.resolve({ ...cached, id: request.id });
    }
    const lookupNs = process.hrtime.bigint() - start;
    // The request was sampled for tracing as it reached this model (in JS: it has no native
    // handle). An executor model runs it as that trace's child, or, untraced, without sampling it
    // again; an ensemble's steps follow `trace` as ever. The front end's receive times are the
    // cached request's trace's.
    const run = this.model.infer({ ...request, received: undefined, parentTrace: request.trace ?? UNTRACED });
    return run.then((response) => {
      const insertStart = process.hrtime.bigint();
      if (!this.unloading) this.cache.insert(key, this.owner, response);
      const missNs = lookupNs + (process.hrtime.bigint() - insertStart);
      add(this.misses, missNs);
      this.summaries?.observe('cache_miss', Number(missNs));
      return response;
    });
  }

  stats(): ModelStatistics {
    const s = this.model.stats();
    const st = s.inference_stats;
    return {
      ...s,
      last_inference: Math.max(s.last_inference, this.lastHitMs),
      inference_stats: {
        ...st,
        success: { count: st.success.count + this.hits.count, ns: st.success.ns + this.hits.ns },
        queue: { count: st.queue.count + this.hits.count, ns: st.queue.ns },
        cache_hit: { ...this.hits },
        cache_miss: { ...this.misses },
      },
    };
  }

  /**
   * A cached model answers once a request (a decoupled one is refused), so it has summaries only:
   * the model's with the cache's, as Triton's: no request summary (a hit's duration is not the
   * model's, and Triton leaves it out for a cached model), cache_hit and cache_miss.
   */
  latencyMetrics(): LatencyMetrics {
    const model = this.model.latencyMetrics?.();
    return {
      enable: (which) => {
        model?.enable(which);
        if (which.summaries) this.summaries ??= new JsLatencySummaries();
      },
      readSummaries: (quantiles) => {
        if (!this.summaries) return undefined;
        const { request: _request, ...own } = model?.readSummaries(quantiles) ?? {};
        return { ...own, ...this.summaries.read(quantiles, ['cache_hit', 'cache_miss']) };
      },
    };
  }

  pendingCount(): number {
    return this.model.pendingCount();
  }

  compile(shapes: Record<string, number[]>): Promise<CompileReport> {
    return this.model.compile(shapes);
  }

  /** The model's answers leave the cache once its last request is answered (they take room no later load can use). */
  async unload(): Promise<void> {
    this.unloading = true;
    await this.model.unload();
    this.cache.dropOwner(this.owner);
  }
}

function zero(): StatDuration {
  return { count: 0, ns: 0 };
}

function add(d: StatDuration, ns: bigint): void {
  d.count++;
  d.ns += Number(ns);
}
