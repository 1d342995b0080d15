/**
 * Prometheus metrics with Triton's names and labels, so existing Triton dashboards work. Counters
 * are read from each model's cumulative statistics at scrape time (nothing is counted twice on the
 * hot path); failures by reason are counted by the server, which sees each failure's reason.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { LoadedModel, ModelStatistics } from '../executor/types.js';
import { customMetrics } from '../python-backend/custom-metrics.js';
import { DEFAULT_LATENCY_METRICS, firstResponseHistogramFamily, latencySummaryFamilies, type LatencyMetricsConfig } from './latency-metrics.js';
import { familiesText } from './prometheus-families.js';
import type { ResponseCache } from './response-cache.js';

export type FailureReason = 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';

/** A gauge of the whole server (no labels), read from `value` at scrape time. */
export function serverGauge(registry: Registry, name: string, help: string, value: () => number): void {
  new Gauge({ name, help, registers: [registry], collect() { this.set(value()); } });
}

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly failures = new Map<string, number>();
  /** Failures counted elsewhere (the native infer route), taken at scrape time. */
  private readonly failureSources: Array<() => Array<{ model: string; version: string; reason: FailureReason; count: number }>> = [];

  private readonly models: () => LoadedModel[];
  private readonly latency: LatencyMetricsConfig;

  /**
   * `responseCache`: the server's, whose families (Triton's nv_cache_*) are exported only where
   * there is one. `latency`: which latency metrics (Triton's --metrics-config).
   */
  constructor(models: () => LoadedModel[], responseCache?: ResponseCache, latency: LatencyMetricsConfig = DEFAULT_LATENCY_METRICS) {
    this.models = models;
    this.latency = latency;
    collectDefaultMetrics({ register: this.registry });
    const labelNames = ['model', 'version'] as const;
    let snapshot: Array<{ model: LoadedModel; stats: ModelStatistics }> = [];
    // Statistics are read once per scrape, by the first collector that runs.
    const read = (): void => {
      snapshot = models().map((model) => ({ model, stats: model.stats() }));
    };
    const counter = (name: string, help: string, value: (s: ModelStatistics) => number, first = false): void => {
      new Counter({
        name, help, labelNames, registers: [this.registry],
        collect() {
          if (first) read();
          this.reset();
          for (const { model, stats } of snapshot) this.inc({ model: model.name, version: model.version }, value(stats));
        },
      });
    };
    counter('nv_inference_request_success', 'Number of successful inference requests, all batch sizes', (s) => s.inference_stats.success.count, true);
    const failures = this.failures;
    const takeOtherFailures = (): void => {
      for (const source of this.failureSources) {
        for (const f of source()) this.addFailures(f.model, f.version, f.reason, f.count);
      }
    };
    new Counter({
      name: 'nv_inference_request_failure',
      help: 'Number of failed inference requests, all batch sizes',
      labelNames: ['model', 'version', 'reason'],
      registers: [this.registry],
      collect() {
        takeOtherFailures();
        this.reset();
        for (const [key, count] of failures) {
          const [model, version, reason] = key.split('\u0000') as [string, string, string];
          this.inc({ model, version, reason }, count);
        }
      },
    });
    counter('nv_inference_count', 'Number of inferences performed (does not include cached requests)', (s) => s.inference_count);
    counter('nv_inference_exec_count', 'Number of model executions performed (does not include cached requests)', (s) => s.execution_count);
    if (latency.counters) this.latencyCounters(counter, responseCache !== undefined);
    if (responseCache) {
      serverGauge(this.registry, 'nv_cache_num_entries', 'Number of responses stored in response cache', () => responseCache.size);
      serverGauge(this.registry, 'nv_cache_num_evictions', 'Number of cache evictions in response cache', () => responseCache.evictions);
      serverGauge(this.registry, 'nv_cache_util', 'Cache utilization [0.0 - 1.0]', () => responseCache.usedBytes / responseCache.capacity);
    }
    new Gauge({
      name: 'nv_inference_pending_request_count',
      help: 'Instantaneous number of pending requests awaiting execution per-model.',
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const model of models()) this.set({ model: model.name, version: model.version }, model.pendingCount());
      },
    });
  }

  /** Triton's latency counters (off with --metrics-config counter_latencies=false), the cache's with a cache. */
  private latencyCounters(counter: (name: string, help: string, value: (s: ModelStatistics) => number) => void, cache: boolean): void {
    counter('nv_inference_request_duration_us', 'Cumulative inference request duration in microseconds (includes cached requests)', (s) => s.inference_stats.success.ns / 1000);
    counter('nv_inference_queue_duration_us', 'Cumulative inference queuing duration in microseconds (includes cached requests)', (s) => s.inference_stats.queue.ns / 1000);
    counter('nv_inference_compute_input_duration_us', 'Cumulative compute input duration in microseconds (does not include cached requests)', (s) => s.inference_stats.compute_input.ns / 1000);
    counter('nv_inference_compute_infer_duration_us', 'Cumulative compute inference duration in microseconds (does not include cached requests)', (s) => s.inference_stats.compute_infer.ns / 1000);
    counter('nv_inference_compute_output_duration_us', 'Cumulative inference compute output duration in microseconds (does not include cached requests)', (s) => s.inference_stats.compute_output.ns / 1000);
    if (cache) {
      counter('nv_cache_num_hits_per_model', 'Number of cache hits per model', (s) => s.inference_stats.cache_hit?.count ?? 0);
      counter('nv_cache_num_misses_per_model', 'Number of cache misses per model', (s) => s.inference_stats.cache_miss?.count ?? 0);
      counter('nv_cache_hit_duration_per_model', 'Total cache hit duration per model, in microseconds', (s) => (s.inference_stats.cache_hit?.ns ?? 0) / 1000);
      counter('nv_cache_miss_duration_per_model', 'Total cache miss (lookup and insertion) duration per model, in microseconds', (s) => (s.inference_stats.cache_miss?.ns ?? 0) / 1000);
    }
  }

  recordFailure(model: string, version: string, reason: FailureReason): void {
    this.addFailures(model, version, reason, 1);
  }

  /** Adds a source of failures counted outside JS; `take` returns the counts since its last call. */
  addFailureSource(take: () => Array<{ model: string; version: string; reason: FailureReason; count: number }>): void {
    this.failureSources.push(take);
  }

  private addFailures(model: string, version: string, reason: FailureReason, count: number): void {
    const key = `${model}\u0000${version}\u0000${reason}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + count);
  }

  /** gebe's own families, the latency summaries and histograms, then those Python models created (pb_utils.MetricFamily). */
  async text(): Promise<string> {
    const models = this.latency.summaries || this.latency.histograms ? this.models() : [];
    const latency = [
      ...(this.latency.summaries ? latencySummaryFamilies(models, this.latency.quantiles) : []),
      ...(this.latency.histograms ? [firstResponseHistogramFamily(models)] : []),
    ];
    const parts = await Promise.all([this.registry.metrics(), familiesText(latency), customMetrics.text()]);
    return parts.filter((part) => part !== '').join('\n');
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
