/**
 * Which latency metrics the server exports (Triton's `--metrics-config`): the cumulative
 * nv_inference_*_duration_us counters (counter_latencies, on by default) and the
 * nv_inference_*_summary_us summaries (summary_latencies, off by default) with their quantiles
 * (summary_quantiles). The summaries are written here, in Prometheus' text format, from each
 * model's readings (executor/latency-summaries.ts).
 */
import type { LatencyFamily, LatencySummaryReading } from '../executor/latency-summaries.js';
import type { LoadedModel } from '../executor/types.js';

export interface LatencyMetricsConfig {
  /** counter_latencies: the five nv_inference_*_duration_us counters and the cache's counters. */
  counters: boolean;
  /** summary_latencies: the nv_inference_*_summary_us summaries (and the cache's, with a cache). */
  summaries: boolean;
  /** summary_quantiles, each in [0, 1]. */
  quantiles: number[];
}

/** Triton's defaults: counters, no summaries, and its five quantiles. */
export const DEFAULT_LATENCY_METRICS: LatencyMetricsConfig = { counters: true, summaries: false, quantiles: [0.5, 0.9, 0.95, 0.99, 0.999] };

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
