/**
 * An ensemble's own statistics entry, shaped as Triton reports it: one success or failure per
 * ensemble request (its whole duration), one execution per request, and the compute phases as the
 * sum over the request's steps. gebe's composing models do not report per-request phases, so the
 * ensemble's compute_infer is each step's duration as the ensemble saw it (the composing model's
 * queue included) and its queue the time before the first step was handed on; each composing
 * model's own entry has the exact phases.
 */
import type { JsLatencyMetrics } from '../executor/js-latency-metrics.js';
import type { ModelStatistics, StatDuration } from '../executor/types.js';

type BatchStat = ModelStatistics['batch_stats'][number];
const zero = (): StatDuration => ({ count: 0, ns: 0 });

export class EnsembleStats {
  private readonly s: Omit<ModelStatistics, 'name' | 'version'> = {
    last_inference: 0,
    inference_count: 0,
    execution_count: 0,
    inference_stats: { success: zero(), fail: zero(), queue: zero(), compute_input: zero(), compute_infer: zero(), compute_output: zero() },
    batch_stats: [],
  };
  private readonly byBatch = new Map<number, BatchStat>();

  /** `latency`: where the requests' latencies go for Triton's summaries (the ensemble's recorder). */
  constructor(private readonly name: string, private readonly version: string, private readonly latency: JsLatencyMetrics) {}

  success(batch: number, totalNs: number, queueNs: number, stepsNs: number): void {
    const st = this.s.inference_stats;
    add(st.success, totalNs);
    add(st.queue, queueNs);
    add(st.compute_input, 0);
    add(st.compute_infer, stepsNs);
    add(st.compute_output, 0);
    const rows = Math.max(1, batch);
    this.s.inference_count += rows;
    this.s.execution_count += 1;
    this.s.last_inference = Date.now();
    let entry = this.byBatch.get(rows);
    if (!entry) {
      entry = { batch_size: rows, compute_input: zero(), compute_infer: zero(), compute_output: zero() };
      this.byBatch.set(rows, entry);
    }
    add(entry.compute_input, 0);
    add(entry.compute_infer, stepsNs);
    add(entry.compute_output, 0);
    this.latency.observe('request', totalNs);
    this.latency.observe('queue', queueNs);
    this.latency.observe('compute_input', 0);
    this.latency.observe('compute_infer', stepsNs);
    this.latency.observe('compute_output', 0);
  }

  failure(totalNs: number): void {
    add(this.s.inference_stats.fail, totalNs);
    this.s.last_inference = Date.now();
  }

  snapshot(): ModelStatistics {
    const st = this.s.inference_stats;
    const copy = (d: StatDuration): StatDuration => ({ ...d });
    return {
      name: this.name,
      version: this.version,
      last_inference: this.s.last_inference,
      inference_count: this.s.inference_count,
      execution_count: this.s.execution_count,
      inference_stats: {
        success: copy(st.success), fail: copy(st.fail), queue: copy(st.queue),
        compute_input: copy(st.compute_input), compute_infer: copy(st.compute_infer), compute_output: copy(st.compute_output),
      },
      batch_stats: [...this.byBatch.values()].sort((a, b) => a.batch_size - b.batch_size).map((b) => ({
        batch_size: b.batch_size, compute_input: copy(b.compute_input), compute_infer: copy(b.compute_infer), compute_output: copy(b.compute_output),
      })),
    };
  }
}

function add(d: StatDuration, ns: number): void {
  d.count += 1;
  d.ns += Math.max(0, Math.round(ns));
}
