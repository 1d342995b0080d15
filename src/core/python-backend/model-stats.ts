/**
 * Statistics of a model gebe runs outside the native scheduler (a Python model), kept as Triton's
 * statistics extension reports them: per request (success, fail, queue, compute_*) and per
 * execution (batch_stats by batch size).
 */
import type { JsLatencyMetrics } from '../executor/js-latency-metrics.js';
import type { ModelStatistics, StatDuration } from '../executor/types.js';

type Phase = 'compute_input' | 'compute_infer' | 'compute_output';
const zero = (): StatDuration => ({ count: 0, ns: 0 });

export class ModelStats {
  private readonly inference = { success: zero(), fail: zero(), queue: zero(), compute_input: zero(), compute_infer: zero(), compute_output: zero() };
  private readonly batches = new Map<number, Record<Phase, StatDuration>>();
  private inferenceCount = 0;
  private executionCount = 0;
  private lastInference = 0;

  /** `latency`: where the requests' latencies go for Triton's summaries (its model's recorder). */
  constructor(private readonly latency: JsLatencyMetrics) {}

  /** One execute() call over `requests` requests carrying `batchSize` inferences in all. */
  execution(batchSize: number, requests: number, ns: Record<Phase, number>): void {
    this.executionCount += 1;
    this.inferenceCount += batchSize;
    this.lastInference = Date.now();
    let entry = this.batches.get(batchSize);
    if (!entry) {
      entry = { compute_input: zero(), compute_infer: zero(), compute_output: zero() };
      this.batches.set(batchSize, entry);
    }
    for (const phase of ['compute_input', 'compute_infer', 'compute_output'] as const) {
      entry[phase].count += 1;
      entry[phase].ns += ns[phase];
      this.inference[phase].count += requests;
      this.inference[phase].ns += ns[phase] * requests;
      this.latency.observe(phase, ns[phase], requests);
    }
  }

  request(ok: boolean, totalNs: number, queueNs: number): void {
    const target = ok ? this.inference.success : this.inference.fail;
    target.count += 1;
    target.ns += totalNs;
    if (ok) {
      this.inference.queue.count += 1;
      this.inference.queue.ns += queueNs;
      this.latency.observe('request', totalNs);
      this.latency.observe('queue', queueNs);
    }
  }

  snapshot(name: string, version: string): ModelStatistics {
    const copy = (d: StatDuration): StatDuration => ({ ...d });
    return {
      name, version,
      last_inference: this.lastInference,
      inference_count: this.inferenceCount,
      execution_count: this.executionCount,
      inference_stats: {
        success: copy(this.inference.success), fail: copy(this.inference.fail), queue: copy(this.inference.queue),
        compute_input: copy(this.inference.compute_input), compute_infer: copy(this.inference.compute_infer), compute_output: copy(this.inference.compute_output),
      },
      batch_stats: [...this.batches.entries()].sort((a, b) => a[0] - b[0]).map(([batch_size, e]) => ({
        batch_size, compute_input: copy(e.compute_input), compute_infer: copy(e.compute_infer), compute_output: copy(e.compute_output),
      })),
    };
  }
}
