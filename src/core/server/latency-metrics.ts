/**
 * Which latency metrics the server exports (Triton's `--metrics-config`): the cumulative
 * nv_inference_*_duration_us counters (counter_latencies, on by default), the
 * nv_inference_*_summary_us summaries (summary_latencies, off by default) with their quantiles
 * (summary_quantiles), and the decoupled models' nv_inference_first_response_histogram_ms
 * (histogram_latencies, off by default; buckets per model, from its model_metrics). Summaries and
 * histograms are written here, in Prometheus' text format, from each model's readings
 * (executor/latency-summaries.ts, executor/first-response-histogram.ts).
 */
import type { LatencyFamily, LatencySummaryReading } from '../executor/latency-summaries.js';
import type { LatencyRecording, LoadedModel } from '../executor/types.js';
import { firstResponseBuckets, FIRST_RESPONSE_HISTOGRAM, type ModelConfig } from '../config/model-config.js';

export interface LatencyMetricsConfig {
  /** counter_latencies: the five nv_inference_*_duration_us counters and the cache's counters. */
  counters: boolean;
  /** summary_latencies: the nv_inference_*_summary_us summaries (and the cache's, with a cache). */
  summaries: boolean;
  /** summary_quantiles, each in [0, 1]. */
  quantiles: number[];
  /** histogram_latencies: nv_inference_first_response_histogram_ms of the decoupled models. */
  histograms: boolean;
}

/** Triton's defaults: counters, no summaries or histograms, and its five quantiles. */
export const DEFAULT_LATENCY_METRICS: LatencyMetricsConfig = { counters: true, summaries: false, quantiles: [0.5, 0.9, 0.95, 0.99, 0.999], histograms: false };

/** Triton's summary families, by the reading each one shows. */
const SUMMARY_FAMILIES: ReadonlyArray<{ name: string; help: string; family: LatencyFamily }> = [
  { name: 'nv_inference_request_summary_us', help: 'Summary of inference request duration in microseconds (includes cached requests)', family: 'request' },
  { name: 'nv_inference_queue_summary_us', help: 'Summary of inference queuing duration in microseconds (includes cached requests)', family: 'queue' },
  { name: 'nv_inference_compute_input_summary_us', help: 'Summary of compute input duration in microseconds (does not include cached requests)', family: 'compute_input' },
  { name: 'nv_inference_compute_infer_summary_us', help: 'Summary of compute inference duration in microseconds (does not include cached requests)', family: 'compute_infer' },
  { name: 'nv_inference_compute_output_summary_us', help: 'Summary of compute output duration in microseconds (does not include cached requests)', family: 'compute_output' },
  { name: 'nv_cache_hit_summary_per_model', help: 'Summary of cache hit (lookup) duration per model, in microseconds', family: 'cache_hit' },
  { name: 'nv_cache_miss_summary_per_model', help: 'Summary of cache miss (lookup and insertion) duration per model, in microseconds', family: 'cache_miss' },
];

/** A label value in Prometheus' text format. */
function labelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function sample(value: number): string {
  return Number.isNaN(value) ? 'NaN' : String(value);
}

/**
 * The summaries of the models that have them, one family after another; a family no model has is
 * left out (a cached model has no request summary, as in Triton). Empty when there are none.
 */
export function latencySummaryText(models: readonly LoadedModel[], quantiles: readonly number[]): string {
  const readings = models.map((model) => ({ model, summaries: model.latencySummaries?.(quantiles) }));
  const lines: string[] = [];
  for (const { name, help, family } of SUMMARY_FAMILIES) {
    const rows = readings.flatMap(({ model, summaries }) => {
      const reading: LatencySummaryReading | undefined = summaries?.[family];
      return reading ? [{ labels: `model="${labelValue(model.name)}",version="${labelValue(model.version)}"`, reading }] : [];
    });
    if (rows.length === 0) continue;
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} summary`);
    for (const { labels, reading } of rows) {
      quantiles.forEach((q, i) => lines.push(`${name}{${labels},quantile="${q}"} ${sample(reading.quantilesUs[i]!)}`));
      lines.push(`${name}_sum{${labels}} ${reading.sumUs}`, `${name}_count{${labels}} ${reading.count}`);
    }
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/** The decoupled models' first-response histograms; empty when no model has one. */
export function firstResponseHistogramText(models: readonly LoadedModel[]): string {
  const rows = models.flatMap((model) => {
    const reading = model.firstResponseHistogram?.();
    return reading ? [{ labels: `model="${labelValue(model.name)}",version="${labelValue(model.version)}"`, reading }] : [];
  });
  if (rows.length === 0) return '';
  const name = FIRST_RESPONSE_HISTOGRAM;
  const lines = [`# HELP ${name} Duration from request to first response in milliseconds`, `# TYPE ${name} histogram`];
  for (const { labels, reading } of rows) {
    reading.bucketsMs.forEach((le, i) => lines.push(`${name}_bucket{${labels},le="${le}"} ${reading.cumulative[i]}`));
    lines.push(`${name}_bucket{${labels},le="+Inf"} ${reading.count}`, `${name}_sum{${labels}} ${reading.sumMs}`, `${name}_count{${labels}} ${reading.count}`);
  }
  return `${lines.join('\n')}\n`;
}

/** What a model with this config observes on a server with these metrics; undefined: nothing. */
export function latencyRecording(metrics: LatencyMetricsConfig, config: ModelConfig): LatencyRecording | undefined {
  if (!metrics.summaries && !metrics.histograms) return undefined;
  return { summaries: metrics.summaries, firstResponseBucketsMs: metrics.histograms ? firstResponseBuckets(config) : undefined };
}
